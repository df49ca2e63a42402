from __future__ import annotations

from pkgutil import extend_path
__path__ = extend_path(__path__, __name__)

import abc
import builtins
import datetime
import enum
import typing

import jsii
import publication
import typing_extensions

from jsii._type_checking import cached_type_hints, check_type


from ._jsii import *

class _LazyImport:
    def __init__(self, module_name: str) -> None:
        self._module_name = module_name
        self._module: typing.Any = None
    def __getattr__(self, name: str) -> typing.Any:
        if self._module is None:
            import importlib
            self._module = importlib.import_module(self._module_name)
        return getattr(self._module, name)

if typing.TYPE_CHECKING:

    import cdk8s as _cdk8s_d3d9af27
    import constructs as _constructs_77d1e7e8
else:

    _cdk8s_d3d9af27 = _LazyImport("cdk8s")
    _constructs_77d1e7e8 = _LazyImport("constructs")


class PrometheusRule(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="comcoreosmonitoring.PrometheusRule",
):
    '''The ``PrometheusRule`` custom resource definition (CRD) defines `alerting <https://prometheus.io/docs/prometheus/latest/configuration/alerting_rules/>`_ and `recording <https://prometheus.io/docs/prometheus/latest/configuration/recording_rules/>`_ rules to be evaluated by ``Prometheus`` or ``ThanosRuler`` objects.

    ``Prometheus`` and ``ThanosRuler`` objects select ``PrometheusRule`` objects using label and namespace selectors.

    :schema: PrometheusRule
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        spec: typing.Union["PrometheusRuleSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "PrometheusRule" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param spec: spec defines the specification of desired alerting rule definitions for Prometheus.
        :param metadata: 
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ec6724b05d6be8a069ac535d8d8d4461a23782e0a344fbd36d14e78cee59a003)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = PrometheusRuleProps(spec=spec, metadata=metadata)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        spec: typing.Union["PrometheusRuleSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "PrometheusRule".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param spec: spec defines the specification of desired alerting rule definitions for Prometheus.
        :param metadata: 
        '''
        props = PrometheusRuleProps(spec=spec, metadata=metadata)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "PrometheusRule".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="comcoreosmonitoring.PrometheusRuleProps",
    jsii_struct_bases=[],
    name_mapping={"spec": "spec", "metadata": "metadata"},
)
class PrometheusRuleProps:
    def __init__(
        self,
        *,
        spec: typing.Union["PrometheusRuleSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''The ``PrometheusRule`` custom resource definition (CRD) defines `alerting <https://prometheus.io/docs/prometheus/latest/configuration/alerting_rules/>`_ and `recording <https://prometheus.io/docs/prometheus/latest/configuration/recording_rules/>`_ rules to be evaluated by ``Prometheus`` or ``ThanosRuler`` objects.

        ``Prometheus`` and ``ThanosRuler`` objects select ``PrometheusRule`` objects using label and namespace selectors.

        :param spec: spec defines the specification of desired alerting rule definitions for Prometheus.
        :param metadata: 

        :schema: PrometheusRule
        '''
        if isinstance(spec, dict):
            spec = PrometheusRuleSpec(**spec)
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e21b7008853c9699b14d4efcceafa6ff9c975095432e2544845140d3312103bd)
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "spec": spec,
        }
        if metadata is not None:
            self._values["metadata"] = metadata

    @builtins.property
    def spec(self) -> "PrometheusRuleSpec":
        '''spec defines the specification of desired alerting rule definitions for Prometheus.

        :schema: PrometheusRule#spec
        '''
        result = self._values.get("spec")
        assert result is not None, "Required property 'spec' is missing"
        return typing.cast("PrometheusRuleSpec", result)

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: PrometheusRule#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PrometheusRuleProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.PrometheusRuleSpec",
    jsii_struct_bases=[],
    name_mapping={"groups": "groups"},
)
class PrometheusRuleSpec:
    def __init__(
        self,
        *,
        groups: typing.Optional[typing.Sequence[typing.Union["PrometheusRuleSpecGroups", typing.Dict[builtins.str, typing.Any]]]] = None,
    ) -> None:
        '''spec defines the specification of desired alerting rule definitions for Prometheus.

        :param groups: groups defines the content of Prometheus rule file.

        :schema: PrometheusRuleSpec
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b7d731a17a6145319669c5ad04bbd6037ce4798b1fc1890c11154acc9d5785cc)
            check_type(argname="argument groups", value=groups, expected_type=type_hints["groups"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if groups is not None:
            self._values["groups"] = groups

    @builtins.property
    def groups(self) -> typing.Optional[typing.List["PrometheusRuleSpecGroups"]]:
        '''groups defines the content of Prometheus rule file.

        :schema: PrometheusRuleSpec#groups
        '''
        result = self._values.get("groups")
        return typing.cast(typing.Optional[typing.List["PrometheusRuleSpecGroups"]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PrometheusRuleSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.PrometheusRuleSpecGroups",
    jsii_struct_bases=[],
    name_mapping={
        "name": "name",
        "interval": "interval",
        "labels": "labels",
        "limit": "limit",
        "partial_response_strategy": "partialResponseStrategy",
        "query_offset": "queryOffset",
        "rules": "rules",
    },
)
class PrometheusRuleSpecGroups:
    def __init__(
        self,
        *,
        name: builtins.str,
        interval: typing.Optional[builtins.str] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        limit: typing.Optional[jsii.Number] = None,
        partial_response_strategy: typing.Optional[builtins.str] = None,
        query_offset: typing.Optional[builtins.str] = None,
        rules: typing.Optional[typing.Sequence[typing.Union["PrometheusRuleSpecGroupsRules", typing.Dict[builtins.str, typing.Any]]]] = None,
    ) -> None:
        '''RuleGroup is a list of sequentially evaluated recording and alerting rules.

        :param name: name defines the name of the rule group.
        :param interval: interval defines how often rules in the group are evaluated.
        :param labels: labels define the labels to add or overwrite before storing the result for its rules. The labels defined at the rule level take precedence. It requires Prometheus >= 3.0.0. The field is ignored for Thanos Ruler.
        :param limit: limit defines the number of alerts an alerting rule and series a recording rule can produce. Limit is supported starting with Prometheus >= 2.31 and Thanos Ruler >= 0.24.
        :param partial_response_strategy: partial_response_strategy is only used by ThanosRuler and will be ignored by Prometheus instances. More info: https://github.com/thanos-io/thanos/blob/main/docs/components/rule.md#partial-response
        :param query_offset: query_offset defines the offset the rule evaluation timestamp of this particular group by the specified duration into the past. It requires Prometheus >= v2.53.0. It is not supported for ThanosRuler.
        :param rules: rules defines the list of alerting and recording rules.

        :schema: PrometheusRuleSpecGroups
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__98e68b7aa3a9e2ab89ed463a5d6f8881ee6f7e42ab4533bfc91fcfee1f79e104)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument interval", value=interval, expected_type=type_hints["interval"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
            check_type(argname="argument limit", value=limit, expected_type=type_hints["limit"])
            check_type(argname="argument partial_response_strategy", value=partial_response_strategy, expected_type=type_hints["partial_response_strategy"])
            check_type(argname="argument query_offset", value=query_offset, expected_type=type_hints["query_offset"])
            check_type(argname="argument rules", value=rules, expected_type=type_hints["rules"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
        }
        if interval is not None:
            self._values["interval"] = interval
        if labels is not None:
            self._values["labels"] = labels
        if limit is not None:
            self._values["limit"] = limit
        if partial_response_strategy is not None:
            self._values["partial_response_strategy"] = partial_response_strategy
        if query_offset is not None:
            self._values["query_offset"] = query_offset
        if rules is not None:
            self._values["rules"] = rules

    @builtins.property
    def name(self) -> builtins.str:
        '''name defines the name of the rule group.

        :schema: PrometheusRuleSpecGroups#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def interval(self) -> typing.Optional[builtins.str]:
        '''interval defines how often rules in the group are evaluated.

        :schema: PrometheusRuleSpecGroups#interval
        '''
        result = self._values.get("interval")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''labels define the labels to add or overwrite before storing the result for its rules.

        The labels defined at the rule level take precedence.

        It requires Prometheus >= 3.0.0.
        The field is ignored for Thanos Ruler.

        :schema: PrometheusRuleSpecGroups#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def limit(self) -> typing.Optional[jsii.Number]:
        '''limit defines the number of alerts an alerting rule and series a recording rule can produce.

        Limit is supported starting with Prometheus >= 2.31 and Thanos Ruler >= 0.24.

        :schema: PrometheusRuleSpecGroups#limit
        '''
        result = self._values.get("limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def partial_response_strategy(self) -> typing.Optional[builtins.str]:
        '''partial_response_strategy is only used by ThanosRuler and will be ignored by Prometheus instances.

        More info: https://github.com/thanos-io/thanos/blob/main/docs/components/rule.md#partial-response

        :schema: PrometheusRuleSpecGroups#partial_response_strategy
        '''
        result = self._values.get("partial_response_strategy")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def query_offset(self) -> typing.Optional[builtins.str]:
        '''query_offset defines the offset the rule evaluation timestamp of this particular group by the specified duration into the past.

        It requires Prometheus >= v2.53.0.
        It is not supported for ThanosRuler.

        :schema: PrometheusRuleSpecGroups#query_offset
        '''
        result = self._values.get("query_offset")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def rules(self) -> typing.Optional[typing.List["PrometheusRuleSpecGroupsRules"]]:
        '''rules defines the list of alerting and recording rules.

        :schema: PrometheusRuleSpecGroups#rules
        '''
        result = self._values.get("rules")
        return typing.cast(typing.Optional[typing.List["PrometheusRuleSpecGroupsRules"]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PrometheusRuleSpecGroups(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.PrometheusRuleSpecGroupsRules",
    jsii_struct_bases=[],
    name_mapping={
        "expr": "expr",
        "alert": "alert",
        "annotations": "annotations",
        "for_": "for",
        "keep_firing_for": "keepFiringFor",
        "labels": "labels",
        "record": "record",
    },
)
class PrometheusRuleSpecGroupsRules:
    def __init__(
        self,
        *,
        expr: "PrometheusRuleSpecGroupsRulesExpr",
        alert: typing.Optional[builtins.str] = None,
        annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        for_: typing.Optional[builtins.str] = None,
        keep_firing_for: typing.Optional[builtins.str] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        record: typing.Optional[builtins.str] = None,
    ) -> None:
        '''Rule describes an alerting or recording rule See Prometheus documentation: `alerting <https://www.prometheus.io/docs/prometheus/latest/configuration/alerting_rules/>`_ or `recording <https://www.prometheus.io/docs/prometheus/latest/configuration/recording_rules/#recording-rules>`_ rule.

        :param expr: expr defines the PromQL expression to evaluate.
        :param alert: alert defines the name of the alert. Must be a valid label value. Only one of ``record`` and ``alert`` must be set.
        :param annotations: annotations defines annotations to add to each alert. Only valid for alerting rules.
        :param for_: for defines how alerts are considered firing once they have been returned for this long.
        :param keep_firing_for: keep_firing_for defines how long an alert will continue firing after the condition that triggered it has cleared.
        :param labels: labels defines labels to add or overwrite.
        :param record: record defines the name of the time series to output to. Must be a valid metric name. Only one of ``record`` and ``alert`` must be set.

        :schema: PrometheusRuleSpecGroupsRules
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0c1781d51e64e7d339630495159adc2c953dc730d79c53f3189530376fc669b9)
            check_type(argname="argument expr", value=expr, expected_type=type_hints["expr"])
            check_type(argname="argument alert", value=alert, expected_type=type_hints["alert"])
            check_type(argname="argument annotations", value=annotations, expected_type=type_hints["annotations"])
            check_type(argname="argument for_", value=for_, expected_type=type_hints["for_"])
            check_type(argname="argument keep_firing_for", value=keep_firing_for, expected_type=type_hints["keep_firing_for"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
            check_type(argname="argument record", value=record, expected_type=type_hints["record"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "expr": expr,
        }
        if alert is not None:
            self._values["alert"] = alert
        if annotations is not None:
            self._values["annotations"] = annotations
        if for_ is not None:
            self._values["for_"] = for_
        if keep_firing_for is not None:
            self._values["keep_firing_for"] = keep_firing_for
        if labels is not None:
            self._values["labels"] = labels
        if record is not None:
            self._values["record"] = record

    @builtins.property
    def expr(self) -> "PrometheusRuleSpecGroupsRulesExpr":
        '''expr defines the PromQL expression to evaluate.

        :schema: PrometheusRuleSpecGroupsRules#expr
        '''
        result = self._values.get("expr")
        assert result is not None, "Required property 'expr' is missing"
        return typing.cast("PrometheusRuleSpecGroupsRulesExpr", result)

    @builtins.property
    def alert(self) -> typing.Optional[builtins.str]:
        '''alert defines the name of the alert.

        Must be a valid label value.
        Only one of ``record`` and ``alert`` must be set.

        :schema: PrometheusRuleSpecGroupsRules#alert
        '''
        result = self._values.get("alert")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def annotations(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''annotations defines annotations to add to each alert.

        Only valid for alerting rules.

        :schema: PrometheusRuleSpecGroupsRules#annotations
        '''
        result = self._values.get("annotations")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def for_(self) -> typing.Optional[builtins.str]:
        '''for defines how alerts are considered firing once they have been returned for this long.

        :schema: PrometheusRuleSpecGroupsRules#for
        '''
        result = self._values.get("for_")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def keep_firing_for(self) -> typing.Optional[builtins.str]:
        '''keep_firing_for defines how long an alert will continue firing after the condition that triggered it has cleared.

        :schema: PrometheusRuleSpecGroupsRules#keep_firing_for
        '''
        result = self._values.get("keep_firing_for")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''labels defines labels to add or overwrite.

        :schema: PrometheusRuleSpecGroupsRules#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def record(self) -> typing.Optional[builtins.str]:
        '''record defines the name of the time series to output to.

        Must be a valid metric name.
        Only one of ``record`` and ``alert`` must be set.

        :schema: PrometheusRuleSpecGroupsRules#record
        '''
        result = self._values.get("record")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PrometheusRuleSpecGroupsRules(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class PrometheusRuleSpecGroupsRulesExpr(
    metaclass=jsii.JSIIMeta,
    jsii_type="comcoreosmonitoring.PrometheusRuleSpecGroupsRulesExpr",
):
    '''expr defines the PromQL expression to evaluate.

    :schema: PrometheusRuleSpecGroupsRulesExpr
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "PrometheusRuleSpecGroupsRulesExpr":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9d15b24abce544d261347136c421e3c3bfbe004b752ee51d2e6592a3954913ed)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("PrometheusRuleSpecGroupsRulesExpr", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(cls, value: builtins.str) -> "PrometheusRuleSpecGroupsRulesExpr":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2a72830e7b4ad0667279eb3ab8cb70176dad9058a7eb51c8c68421e360cc0cad)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("PrometheusRuleSpecGroupsRulesExpr", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class ServiceMonitor(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="comcoreosmonitoring.ServiceMonitor",
):
    '''The ``ServiceMonitor`` custom resource definition (CRD) defines how ``Prometheus`` and ``PrometheusAgent`` can scrape metrics from a group of services.

    Among other things, it allows to specify:
    The services to scrape via label selectors.
    The container ports to scrape.
    Authentication credentials to use.
    Target and metric relabeling.

    ``Prometheus`` and ``PrometheusAgent`` objects select ``ServiceMonitor`` objects using label and namespace selectors.

    :schema: ServiceMonitor
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        spec: typing.Union["ServiceMonitorSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "ServiceMonitor" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param spec: spec defines the specification of desired Service selection for target discovery by Prometheus.
        :param metadata: 
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ae743b5825b3e6075ede1500d52f893c3c6a63be14f647f9a44d0e722d356470)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = ServiceMonitorProps(spec=spec, metadata=metadata)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        spec: typing.Union["ServiceMonitorSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "ServiceMonitor".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param spec: spec defines the specification of desired Service selection for target discovery by Prometheus.
        :param metadata: 
        '''
        props = ServiceMonitorProps(spec=spec, metadata=metadata)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "ServiceMonitor".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorProps",
    jsii_struct_bases=[],
    name_mapping={"spec": "spec", "metadata": "metadata"},
)
class ServiceMonitorProps:
    def __init__(
        self,
        *,
        spec: typing.Union["ServiceMonitorSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''The ``ServiceMonitor`` custom resource definition (CRD) defines how ``Prometheus`` and ``PrometheusAgent`` can scrape metrics from a group of services.

        Among other things, it allows to specify:

        - The services to scrape via label selectors.
        - The container ports to scrape.
        - Authentication credentials to use.
        - Target and metric relabeling.

        ``Prometheus`` and ``PrometheusAgent`` objects select ``ServiceMonitor`` objects using label and namespace selectors.

        :param spec: spec defines the specification of desired Service selection for target discovery by Prometheus.
        :param metadata: 

        :schema: ServiceMonitor
        '''
        if isinstance(spec, dict):
            spec = ServiceMonitorSpec(**spec)
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__56bca6778cf6036cd0140b25f1a1429742323914ee819ae9276e47c0e290aaf5)
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "spec": spec,
        }
        if metadata is not None:
            self._values["metadata"] = metadata

    @builtins.property
    def spec(self) -> "ServiceMonitorSpec":
        '''spec defines the specification of desired Service selection for target discovery by Prometheus.

        :schema: ServiceMonitor#spec
        '''
        result = self._values.get("spec")
        assert result is not None, "Required property 'spec' is missing"
        return typing.cast("ServiceMonitorSpec", result)

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: ServiceMonitor#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpec",
    jsii_struct_bases=[],
    name_mapping={
        "endpoints": "endpoints",
        "selector": "selector",
        "attach_metadata": "attachMetadata",
        "body_size_limit": "bodySizeLimit",
        "convert_classic_histograms_to_nhcb": "convertClassicHistogramsToNhcb",
        "fallback_scrape_protocol": "fallbackScrapeProtocol",
        "job_label": "jobLabel",
        "keep_dropped_targets": "keepDroppedTargets",
        "label_limit": "labelLimit",
        "label_name_length_limit": "labelNameLengthLimit",
        "label_value_length_limit": "labelValueLengthLimit",
        "namespace_selector": "namespaceSelector",
        "native_histogram_bucket_limit": "nativeHistogramBucketLimit",
        "native_histogram_min_bucket_factor": "nativeHistogramMinBucketFactor",
        "pod_target_labels": "podTargetLabels",
        "sample_limit": "sampleLimit",
        "scrape_class": "scrapeClass",
        "scrape_classic_histograms": "scrapeClassicHistograms",
        "scrape_protocols": "scrapeProtocols",
        "selector_mechanism": "selectorMechanism",
        "service_discovery_role": "serviceDiscoveryRole",
        "target_labels": "targetLabels",
        "target_limit": "targetLimit",
    },
)
class ServiceMonitorSpec:
    def __init__(
        self,
        *,
        endpoints: typing.Sequence[typing.Union["ServiceMonitorSpecEndpoints", typing.Dict[builtins.str, typing.Any]]],
        selector: typing.Union["ServiceMonitorSpecSelector", typing.Dict[builtins.str, typing.Any]],
        attach_metadata: typing.Optional[typing.Union["ServiceMonitorSpecAttachMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        body_size_limit: typing.Optional[builtins.str] = None,
        convert_classic_histograms_to_nhcb: typing.Optional[builtins.bool] = None,
        fallback_scrape_protocol: typing.Optional["ServiceMonitorSpecFallbackScrapeProtocol"] = None,
        job_label: typing.Optional[builtins.str] = None,
        keep_dropped_targets: typing.Optional[jsii.Number] = None,
        label_limit: typing.Optional[jsii.Number] = None,
        label_name_length_limit: typing.Optional[jsii.Number] = None,
        label_value_length_limit: typing.Optional[jsii.Number] = None,
        namespace_selector: typing.Optional[typing.Union["ServiceMonitorSpecNamespaceSelector", typing.Dict[builtins.str, typing.Any]]] = None,
        native_histogram_bucket_limit: typing.Optional[jsii.Number] = None,
        native_histogram_min_bucket_factor: typing.Optional["ServiceMonitorSpecNativeHistogramMinBucketFactor"] = None,
        pod_target_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
        sample_limit: typing.Optional[jsii.Number] = None,
        scrape_class: typing.Optional[builtins.str] = None,
        scrape_classic_histograms: typing.Optional[builtins.bool] = None,
        scrape_protocols: typing.Optional[typing.Sequence["ServiceMonitorSpecScrapeProtocols"]] = None,
        selector_mechanism: typing.Optional["ServiceMonitorSpecSelectorMechanism"] = None,
        service_discovery_role: typing.Optional["ServiceMonitorSpecServiceDiscoveryRole"] = None,
        target_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
        target_limit: typing.Optional[jsii.Number] = None,
    ) -> None:
        '''spec defines the specification of desired Service selection for target discovery by Prometheus.

        :param endpoints: endpoints defines the list of endpoints part of this ServiceMonitor. Defines how to scrape metrics from Kubernetes `Endpoints <https://kubernetes.io/docs/concepts/services-networking/service/#endpoints>`_ objects. In most cases, an Endpoints object is backed by a Kubernetes `Service <https://kubernetes.io/docs/concepts/services-networking/service/>`_ object with the same name and labels.
        :param selector: selector defines the label selector to select the Kubernetes ``Endpoints`` objects to scrape metrics from.
        :param attach_metadata: attachMetadata defines additional metadata which is added to the discovered targets. It requires Prometheus >= v2.37.0.
        :param body_size_limit: bodySizeLimit when defined, bodySizeLimit specifies a job level limit on the size of uncompressed response body that will be accepted by Prometheus. It requires Prometheus >= v2.28.0.
        :param convert_classic_histograms_to_nhcb: convertClassicHistogramsToNHCB defines whether to convert all scraped classic histograms into a native histogram with custom buckets. It requires Prometheus >= v3.0.0.
        :param fallback_scrape_protocol: fallbackScrapeProtocol defines the protocol to use if a scrape returns blank, unparseable, or otherwise invalid Content-Type. It requires Prometheus >= v3.0.0.
        :param job_label: jobLabel selects the label from the associated Kubernetes ``Service`` object which will be used as the ``job`` label for all metrics. For example if ``jobLabel`` is set to ``foo`` and the Kubernetes ``Service`` object is labeled with ``foo: bar``, then Prometheus adds the ``job="bar"`` label to all ingested metrics. If the value of this field is empty or if the label doesn't exist for the given Service, the ``job`` label of the metrics defaults to the name of the associated Kubernetes ``Service``.
        :param keep_dropped_targets: keepDroppedTargets defines the per-scrape limit on the number of targets dropped by relabeling that will be kept in memory. 0 means no limit. It requires Prometheus >= v2.47.0.
        :param label_limit: labelLimit defines the per-scrape limit on number of labels that will be accepted for a sample. It requires Prometheus >= v2.27.0.
        :param label_name_length_limit: labelNameLengthLimit defines the per-scrape limit on length of labels name that will be accepted for a sample. It requires Prometheus >= v2.27.0.
        :param label_value_length_limit: labelValueLengthLimit defines the per-scrape limit on length of labels value that will be accepted for a sample. It requires Prometheus >= v2.27.0.
        :param namespace_selector: namespaceSelector defines in which namespace(s) Prometheus should discover the services. By default, the services are discovered in the same namespace as the ``ServiceMonitor`` object but it is possible to select pods across different/all namespaces.
        :param native_histogram_bucket_limit: nativeHistogramBucketLimit defines ff there are more than this many buckets in a native histogram, buckets will be merged to stay within the limit. It requires Prometheus >= v2.45.0.
        :param native_histogram_min_bucket_factor: nativeHistogramMinBucketFactor defines if the growth factor of one bucket to the next is smaller than this, buckets will be merged to increase the factor sufficiently. It requires Prometheus >= v2.50.0.
        :param pod_target_labels: podTargetLabels defines the labels which are transferred from the associated Kubernetes ``Pod`` object onto the ingested metrics.
        :param sample_limit: sampleLimit defines a per-scrape limit on the number of scraped samples that will be accepted.
        :param scrape_class: scrapeClass defines the scrape class to apply.
        :param scrape_classic_histograms: scrapeClassicHistograms defines whether to scrape a classic histogram that is also exposed as a native histogram. It requires Prometheus >= v2.45.0. Notice: ``scrapeClassicHistograms`` corresponds to the ``always_scrape_classic_histograms`` field in the Prometheus configuration.
        :param scrape_protocols: scrapeProtocols defines the protocols to negotiate during a scrape. It tells clients the protocols supported by Prometheus in order of preference (from most to least preferred). If unset, Prometheus uses its default value. It requires Prometheus >= v2.49.0.
        :param selector_mechanism: selectorMechanism defines the mechanism used to select the endpoints to scrape. By default, the selection process relies on relabel configurations to filter the discovered targets. Alternatively, you can opt in for role selectors, which may offer better efficiency in large clusters. Which strategy is best for your use case needs to be carefully evaluated. It requires Prometheus >= v2.17.0.
        :param service_discovery_role: serviceDiscoveryRole defines the service discovery role used to discover targets. If set, the value should be either "Endpoints" or "EndpointSlice". Otherwise it defaults to the value defined in the Prometheus/PrometheusAgent resource.
        :param target_labels: targetLabels defines the labels which are transferred from the associated Kubernetes ``Service`` object onto the ingested metrics.
        :param target_limit: targetLimit defines a limit on the number of scraped targets that will be accepted.

        :schema: ServiceMonitorSpec
        '''
        if isinstance(selector, dict):
            selector = ServiceMonitorSpecSelector(**selector)
        if isinstance(attach_metadata, dict):
            attach_metadata = ServiceMonitorSpecAttachMetadata(**attach_metadata)
        if isinstance(namespace_selector, dict):
            namespace_selector = ServiceMonitorSpecNamespaceSelector(**namespace_selector)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__77dad9e9e97980d2d9001de098d81faeb424d5144d09285dc28512f29a3815ba)
            check_type(argname="argument endpoints", value=endpoints, expected_type=type_hints["endpoints"])
            check_type(argname="argument selector", value=selector, expected_type=type_hints["selector"])
            check_type(argname="argument attach_metadata", value=attach_metadata, expected_type=type_hints["attach_metadata"])
            check_type(argname="argument body_size_limit", value=body_size_limit, expected_type=type_hints["body_size_limit"])
            check_type(argname="argument convert_classic_histograms_to_nhcb", value=convert_classic_histograms_to_nhcb, expected_type=type_hints["convert_classic_histograms_to_nhcb"])
            check_type(argname="argument fallback_scrape_protocol", value=fallback_scrape_protocol, expected_type=type_hints["fallback_scrape_protocol"])
            check_type(argname="argument job_label", value=job_label, expected_type=type_hints["job_label"])
            check_type(argname="argument keep_dropped_targets", value=keep_dropped_targets, expected_type=type_hints["keep_dropped_targets"])
            check_type(argname="argument label_limit", value=label_limit, expected_type=type_hints["label_limit"])
            check_type(argname="argument label_name_length_limit", value=label_name_length_limit, expected_type=type_hints["label_name_length_limit"])
            check_type(argname="argument label_value_length_limit", value=label_value_length_limit, expected_type=type_hints["label_value_length_limit"])
            check_type(argname="argument namespace_selector", value=namespace_selector, expected_type=type_hints["namespace_selector"])
            check_type(argname="argument native_histogram_bucket_limit", value=native_histogram_bucket_limit, expected_type=type_hints["native_histogram_bucket_limit"])
            check_type(argname="argument native_histogram_min_bucket_factor", value=native_histogram_min_bucket_factor, expected_type=type_hints["native_histogram_min_bucket_factor"])
            check_type(argname="argument pod_target_labels", value=pod_target_labels, expected_type=type_hints["pod_target_labels"])
            check_type(argname="argument sample_limit", value=sample_limit, expected_type=type_hints["sample_limit"])
            check_type(argname="argument scrape_class", value=scrape_class, expected_type=type_hints["scrape_class"])
            check_type(argname="argument scrape_classic_histograms", value=scrape_classic_histograms, expected_type=type_hints["scrape_classic_histograms"])
            check_type(argname="argument scrape_protocols", value=scrape_protocols, expected_type=type_hints["scrape_protocols"])
            check_type(argname="argument selector_mechanism", value=selector_mechanism, expected_type=type_hints["selector_mechanism"])
            check_type(argname="argument service_discovery_role", value=service_discovery_role, expected_type=type_hints["service_discovery_role"])
            check_type(argname="argument target_labels", value=target_labels, expected_type=type_hints["target_labels"])
            check_type(argname="argument target_limit", value=target_limit, expected_type=type_hints["target_limit"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "endpoints": endpoints,
            "selector": selector,
        }
        if attach_metadata is not None:
            self._values["attach_metadata"] = attach_metadata
        if body_size_limit is not None:
            self._values["body_size_limit"] = body_size_limit
        if convert_classic_histograms_to_nhcb is not None:
            self._values["convert_classic_histograms_to_nhcb"] = convert_classic_histograms_to_nhcb
        if fallback_scrape_protocol is not None:
            self._values["fallback_scrape_protocol"] = fallback_scrape_protocol
        if job_label is not None:
            self._values["job_label"] = job_label
        if keep_dropped_targets is not None:
            self._values["keep_dropped_targets"] = keep_dropped_targets
        if label_limit is not None:
            self._values["label_limit"] = label_limit
        if label_name_length_limit is not None:
            self._values["label_name_length_limit"] = label_name_length_limit
        if label_value_length_limit is not None:
            self._values["label_value_length_limit"] = label_value_length_limit
        if namespace_selector is not None:
            self._values["namespace_selector"] = namespace_selector
        if native_histogram_bucket_limit is not None:
            self._values["native_histogram_bucket_limit"] = native_histogram_bucket_limit
        if native_histogram_min_bucket_factor is not None:
            self._values["native_histogram_min_bucket_factor"] = native_histogram_min_bucket_factor
        if pod_target_labels is not None:
            self._values["pod_target_labels"] = pod_target_labels
        if sample_limit is not None:
            self._values["sample_limit"] = sample_limit
        if scrape_class is not None:
            self._values["scrape_class"] = scrape_class
        if scrape_classic_histograms is not None:
            self._values["scrape_classic_histograms"] = scrape_classic_histograms
        if scrape_protocols is not None:
            self._values["scrape_protocols"] = scrape_protocols
        if selector_mechanism is not None:
            self._values["selector_mechanism"] = selector_mechanism
        if service_discovery_role is not None:
            self._values["service_discovery_role"] = service_discovery_role
        if target_labels is not None:
            self._values["target_labels"] = target_labels
        if target_limit is not None:
            self._values["target_limit"] = target_limit

    @builtins.property
    def endpoints(self) -> typing.List["ServiceMonitorSpecEndpoints"]:
        '''endpoints defines the list of endpoints part of this ServiceMonitor.

        Defines how to scrape metrics from Kubernetes `Endpoints <https://kubernetes.io/docs/concepts/services-networking/service/#endpoints>`_ objects.
        In most cases, an Endpoints object is backed by a Kubernetes `Service <https://kubernetes.io/docs/concepts/services-networking/service/>`_ object with the same name and labels.

        :schema: ServiceMonitorSpec#endpoints
        '''
        result = self._values.get("endpoints")
        assert result is not None, "Required property 'endpoints' is missing"
        return typing.cast(typing.List["ServiceMonitorSpecEndpoints"], result)

    @builtins.property
    def selector(self) -> "ServiceMonitorSpecSelector":
        '''selector defines the label selector to select the Kubernetes ``Endpoints`` objects to scrape metrics from.

        :schema: ServiceMonitorSpec#selector
        '''
        result = self._values.get("selector")
        assert result is not None, "Required property 'selector' is missing"
        return typing.cast("ServiceMonitorSpecSelector", result)

    @builtins.property
    def attach_metadata(self) -> typing.Optional["ServiceMonitorSpecAttachMetadata"]:
        '''attachMetadata defines additional metadata which is added to the discovered targets.

        It requires Prometheus >= v2.37.0.

        :schema: ServiceMonitorSpec#attachMetadata
        '''
        result = self._values.get("attach_metadata")
        return typing.cast(typing.Optional["ServiceMonitorSpecAttachMetadata"], result)

    @builtins.property
    def body_size_limit(self) -> typing.Optional[builtins.str]:
        '''bodySizeLimit when defined, bodySizeLimit specifies a job level limit on the size of uncompressed response body that will be accepted by Prometheus.

        It requires Prometheus >= v2.28.0.

        :schema: ServiceMonitorSpec#bodySizeLimit
        '''
        result = self._values.get("body_size_limit")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def convert_classic_histograms_to_nhcb(self) -> typing.Optional[builtins.bool]:
        '''convertClassicHistogramsToNHCB defines whether to convert all scraped classic histograms into a native histogram with custom buckets.

        It requires Prometheus >= v3.0.0.

        :schema: ServiceMonitorSpec#convertClassicHistogramsToNHCB
        '''
        result = self._values.get("convert_classic_histograms_to_nhcb")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def fallback_scrape_protocol(
        self,
    ) -> typing.Optional["ServiceMonitorSpecFallbackScrapeProtocol"]:
        '''fallbackScrapeProtocol defines the protocol to use if a scrape returns blank, unparseable, or otherwise invalid Content-Type.

        It requires Prometheus >= v3.0.0.

        :schema: ServiceMonitorSpec#fallbackScrapeProtocol
        '''
        result = self._values.get("fallback_scrape_protocol")
        return typing.cast(typing.Optional["ServiceMonitorSpecFallbackScrapeProtocol"], result)

    @builtins.property
    def job_label(self) -> typing.Optional[builtins.str]:
        '''jobLabel selects the label from the associated Kubernetes ``Service`` object which will be used as the ``job`` label for all metrics.

        For example if ``jobLabel`` is set to ``foo`` and the Kubernetes ``Service``
        object is labeled with ``foo: bar``, then Prometheus adds the ``job="bar"``
        label to all ingested metrics.

        If the value of this field is empty or if the label doesn't exist for
        the given Service, the ``job`` label of the metrics defaults to the name
        of the associated Kubernetes ``Service``.

        :schema: ServiceMonitorSpec#jobLabel
        '''
        result = self._values.get("job_label")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def keep_dropped_targets(self) -> typing.Optional[jsii.Number]:
        '''keepDroppedTargets defines the per-scrape limit on the number of targets dropped by relabeling that will be kept in memory.

        0 means no limit.

        It requires Prometheus >= v2.47.0.

        :schema: ServiceMonitorSpec#keepDroppedTargets
        '''
        result = self._values.get("keep_dropped_targets")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def label_limit(self) -> typing.Optional[jsii.Number]:
        '''labelLimit defines the per-scrape limit on number of labels that will be accepted for a sample.

        It requires Prometheus >= v2.27.0.

        :schema: ServiceMonitorSpec#labelLimit
        '''
        result = self._values.get("label_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def label_name_length_limit(self) -> typing.Optional[jsii.Number]:
        '''labelNameLengthLimit defines the per-scrape limit on length of labels name that will be accepted for a sample.

        It requires Prometheus >= v2.27.0.

        :schema: ServiceMonitorSpec#labelNameLengthLimit
        '''
        result = self._values.get("label_name_length_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def label_value_length_limit(self) -> typing.Optional[jsii.Number]:
        '''labelValueLengthLimit defines the per-scrape limit on length of labels value that will be accepted for a sample.

        It requires Prometheus >= v2.27.0.

        :schema: ServiceMonitorSpec#labelValueLengthLimit
        '''
        result = self._values.get("label_value_length_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def namespace_selector(
        self,
    ) -> typing.Optional["ServiceMonitorSpecNamespaceSelector"]:
        '''namespaceSelector defines in which namespace(s) Prometheus should discover the services.

        By default, the services are discovered in the same namespace as the ``ServiceMonitor`` object but it is possible to select pods across different/all namespaces.

        :schema: ServiceMonitorSpec#namespaceSelector
        '''
        result = self._values.get("namespace_selector")
        return typing.cast(typing.Optional["ServiceMonitorSpecNamespaceSelector"], result)

    @builtins.property
    def native_histogram_bucket_limit(self) -> typing.Optional[jsii.Number]:
        '''nativeHistogramBucketLimit defines ff there are more than this many buckets in a native histogram, buckets will be merged to stay within the limit.

        It requires Prometheus >= v2.45.0.

        :schema: ServiceMonitorSpec#nativeHistogramBucketLimit
        '''
        result = self._values.get("native_histogram_bucket_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def native_histogram_min_bucket_factor(
        self,
    ) -> typing.Optional["ServiceMonitorSpecNativeHistogramMinBucketFactor"]:
        '''nativeHistogramMinBucketFactor defines if the growth factor of one bucket to the next is smaller than this, buckets will be merged to increase the factor sufficiently.

        It requires Prometheus >= v2.50.0.

        :schema: ServiceMonitorSpec#nativeHistogramMinBucketFactor
        '''
        result = self._values.get("native_histogram_min_bucket_factor")
        return typing.cast(typing.Optional["ServiceMonitorSpecNativeHistogramMinBucketFactor"], result)

    @builtins.property
    def pod_target_labels(self) -> typing.Optional[typing.List[builtins.str]]:
        '''podTargetLabels defines the labels which are transferred from the associated Kubernetes ``Pod`` object onto the ingested metrics.

        :schema: ServiceMonitorSpec#podTargetLabels
        '''
        result = self._values.get("pod_target_labels")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def sample_limit(self) -> typing.Optional[jsii.Number]:
        '''sampleLimit defines a per-scrape limit on the number of scraped samples that will be accepted.

        :schema: ServiceMonitorSpec#sampleLimit
        '''
        result = self._values.get("sample_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def scrape_class(self) -> typing.Optional[builtins.str]:
        '''scrapeClass defines the scrape class to apply.

        :schema: ServiceMonitorSpec#scrapeClass
        '''
        result = self._values.get("scrape_class")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def scrape_classic_histograms(self) -> typing.Optional[builtins.bool]:
        '''scrapeClassicHistograms defines whether to scrape a classic histogram that is also exposed as a native histogram.

        It requires Prometheus >= v2.45.0.

        Notice: ``scrapeClassicHistograms`` corresponds to the ``always_scrape_classic_histograms`` field in the Prometheus configuration.

        :schema: ServiceMonitorSpec#scrapeClassicHistograms
        '''
        result = self._values.get("scrape_classic_histograms")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def scrape_protocols(
        self,
    ) -> typing.Optional[typing.List["ServiceMonitorSpecScrapeProtocols"]]:
        '''scrapeProtocols defines the protocols to negotiate during a scrape.

        It tells clients the
        protocols supported by Prometheus in order of preference (from most to least preferred).

        If unset, Prometheus uses its default value.

        It requires Prometheus >= v2.49.0.

        :schema: ServiceMonitorSpec#scrapeProtocols
        '''
        result = self._values.get("scrape_protocols")
        return typing.cast(typing.Optional[typing.List["ServiceMonitorSpecScrapeProtocols"]], result)

    @builtins.property
    def selector_mechanism(
        self,
    ) -> typing.Optional["ServiceMonitorSpecSelectorMechanism"]:
        '''selectorMechanism defines the mechanism used to select the endpoints to scrape.

        By default, the selection process relies on relabel configurations to filter the discovered targets.
        Alternatively, you can opt in for role selectors, which may offer better efficiency in large clusters.
        Which strategy is best for your use case needs to be carefully evaluated.

        It requires Prometheus >= v2.17.0.

        :schema: ServiceMonitorSpec#selectorMechanism
        '''
        result = self._values.get("selector_mechanism")
        return typing.cast(typing.Optional["ServiceMonitorSpecSelectorMechanism"], result)

    @builtins.property
    def service_discovery_role(
        self,
    ) -> typing.Optional["ServiceMonitorSpecServiceDiscoveryRole"]:
        '''serviceDiscoveryRole defines the service discovery role used to discover targets.

        If set, the value should be either "Endpoints" or "EndpointSlice".
        Otherwise it defaults to the value defined in the
        Prometheus/PrometheusAgent resource.

        :schema: ServiceMonitorSpec#serviceDiscoveryRole
        '''
        result = self._values.get("service_discovery_role")
        return typing.cast(typing.Optional["ServiceMonitorSpecServiceDiscoveryRole"], result)

    @builtins.property
    def target_labels(self) -> typing.Optional[typing.List[builtins.str]]:
        '''targetLabels defines the labels which are transferred from the associated Kubernetes ``Service`` object onto the ingested metrics.

        :schema: ServiceMonitorSpec#targetLabels
        '''
        result = self._values.get("target_labels")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def target_limit(self) -> typing.Optional[jsii.Number]:
        '''targetLimit defines a limit on the number of scraped targets that will be accepted.

        :schema: ServiceMonitorSpec#targetLimit
        '''
        result = self._values.get("target_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecAttachMetadata",
    jsii_struct_bases=[],
    name_mapping={"node": "node"},
)
class ServiceMonitorSpecAttachMetadata:
    def __init__(self, *, node: typing.Optional[builtins.bool] = None) -> None:
        '''attachMetadata defines additional metadata which is added to the discovered targets.

        It requires Prometheus >= v2.37.0.

        :param node: node when set to true, Prometheus attaches node metadata to the discovered targets. The Prometheus service account must have the ``list`` and ``watch`` permissions on the ``Nodes`` objects.

        :schema: ServiceMonitorSpecAttachMetadata
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2bbe935572488af708dc3190e619dcc20410fc1feb14d189191dcc70c240bc2a)
            check_type(argname="argument node", value=node, expected_type=type_hints["node"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if node is not None:
            self._values["node"] = node

    @builtins.property
    def node(self) -> typing.Optional[builtins.bool]:
        '''node when set to true, Prometheus attaches node metadata to the discovered targets.

        The Prometheus service account must have the ``list`` and ``watch``
        permissions on the ``Nodes`` objects.

        :schema: ServiceMonitorSpecAttachMetadata#node
        '''
        result = self._values.get("node")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecAttachMetadata(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpoints",
    jsii_struct_bases=[],
    name_mapping={
        "authorization": "authorization",
        "basic_auth": "basicAuth",
        "bearer_token_file": "bearerTokenFile",
        "bearer_token_secret": "bearerTokenSecret",
        "enable_http2": "enableHttp2",
        "filter_running": "filterRunning",
        "follow_redirects": "followRedirects",
        "honor_labels": "honorLabels",
        "honor_timestamps": "honorTimestamps",
        "interval": "interval",
        "metric_relabelings": "metricRelabelings",
        "no_proxy": "noProxy",
        "oauth2": "oauth2",
        "params": "params",
        "path": "path",
        "port": "port",
        "proxy_connect_header": "proxyConnectHeader",
        "proxy_from_environment": "proxyFromEnvironment",
        "proxy_url": "proxyUrl",
        "relabelings": "relabelings",
        "scheme": "scheme",
        "scrape_timeout": "scrapeTimeout",
        "target_port": "targetPort",
        "tls_config": "tlsConfig",
        "track_timestamps_staleness": "trackTimestampsStaleness",
    },
)
class ServiceMonitorSpecEndpoints:
    def __init__(
        self,
        *,
        authorization: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsAuthorization", typing.Dict[builtins.str, typing.Any]]] = None,
        basic_auth: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsBasicAuth", typing.Dict[builtins.str, typing.Any]]] = None,
        bearer_token_file: typing.Optional[builtins.str] = None,
        bearer_token_secret: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsBearerTokenSecret", typing.Dict[builtins.str, typing.Any]]] = None,
        enable_http2: typing.Optional[builtins.bool] = None,
        filter_running: typing.Optional[builtins.bool] = None,
        follow_redirects: typing.Optional[builtins.bool] = None,
        honor_labels: typing.Optional[builtins.bool] = None,
        honor_timestamps: typing.Optional[builtins.bool] = None,
        interval: typing.Optional[builtins.str] = None,
        metric_relabelings: typing.Optional[typing.Sequence[typing.Union["ServiceMonitorSpecEndpointsMetricRelabelings", typing.Dict[builtins.str, typing.Any]]]] = None,
        no_proxy: typing.Optional[builtins.str] = None,
        oauth2: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2", typing.Dict[builtins.str, typing.Any]]] = None,
        params: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[builtins.str]]] = None,
        path: typing.Optional[builtins.str] = None,
        port: typing.Optional[builtins.str] = None,
        proxy_connect_header: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[typing.Union["ServiceMonitorSpecEndpointsProxyConnectHeader", typing.Dict[builtins.str, typing.Any]]]]] = None,
        proxy_from_environment: typing.Optional[builtins.bool] = None,
        proxy_url: typing.Optional[builtins.str] = None,
        relabelings: typing.Optional[typing.Sequence[typing.Union["ServiceMonitorSpecEndpointsRelabelings", typing.Dict[builtins.str, typing.Any]]]] = None,
        scheme: typing.Optional["ServiceMonitorSpecEndpointsScheme"] = None,
        scrape_timeout: typing.Optional[builtins.str] = None,
        target_port: typing.Optional["ServiceMonitorSpecEndpointsTargetPort"] = None,
        tls_config: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsTlsConfig", typing.Dict[builtins.str, typing.Any]]] = None,
        track_timestamps_staleness: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''Endpoint defines an endpoint serving Prometheus metrics to be scraped by Prometheus.

        :param authorization: authorization configures the Authorization header credentials to use when scraping the target. Cannot be set at the same time as ``basicAuth``, or ``oauth2``.
        :param basic_auth: basicAuth defines the Basic Authentication credentials to use when scraping the target. Cannot be set at the same time as ``authorization``, or ``oauth2``.
        :param bearer_token_file: bearerTokenFile defines the file to read bearer token for scraping the target. Deprecated: use ``authorization`` instead.
        :param bearer_token_secret: bearerTokenSecret defines a key of a Secret containing the bearer token for scraping targets. The secret needs to be in the same namespace as the ServiceMonitor object and readable by the Prometheus Operator. Deprecated: use ``authorization`` instead.
        :param enable_http2: enableHttp2 can be used to disable HTTP2 when scraping the target.
        :param filter_running: filterRunning when true, the pods which are not running (e.g. either in Failed or Succeeded state) are dropped during the target discovery. If unset, the filtering is enabled. More info: https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-phase
        :param follow_redirects: followRedirects defines whether the scrape requests should follow HTTP 3xx redirects.
        :param honor_labels: honorLabels defines when true the metric's labels when they collide with the target's labels.
        :param honor_timestamps: honorTimestamps defines whether Prometheus preserves the timestamps when exposed by the target.
        :param interval: interval at which Prometheus scrapes the metrics from the target. If empty, Prometheus uses the global scrape interval.
        :param metric_relabelings: metricRelabelings defines the relabeling rules to apply to the samples before ingestion.
        :param no_proxy: noProxy defines a comma-separated string that can contain IPs, CIDR notation, domain names that should be excluded from proxying. IP and domain names can contain port numbers. It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param oauth2: oauth2 defines the OAuth2 settings to use when scraping the target. It requires Prometheus >= 2.27.0. Cannot be set at the same time as ``authorization``, or ``basicAuth``.
        :param params: params define optional HTTP URL parameters.
        :param path: path defines the HTTP path from which to scrape for metrics. If empty, Prometheus uses the default value (e.g. ``/metrics``).
        :param port: port defines the name of the Service port which this endpoint refers to. It takes precedence over ``targetPort``.
        :param proxy_connect_header: proxyConnectHeader optionally specifies headers to send to proxies during CONNECT requests. It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param proxy_from_environment: proxyFromEnvironment defines whether to use the proxy configuration defined by environment variables (HTTP_PROXY, HTTPS_PROXY, and NO_PROXY). It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param proxy_url: proxyUrl defines the HTTP proxy server to use.
        :param relabelings: relabelings defines the relabeling rules to apply the target's metadata labels. The Operator automatically adds relabelings for a few standard Kubernetes fields. The original scrape job's name is available via the ``__tmp_prometheus_job_name`` label. More info: https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config
        :param scheme: scheme defines the HTTP scheme to use for scraping. ``http`` and ``https`` are the expected values unless you rewrite the ``__scheme__`` label via relabeling. If empty, Prometheus uses the default value ``http``.
        :param scrape_timeout: scrapeTimeout defines the timeout after which Prometheus considers the scrape to be failed. If empty, Prometheus uses the global scrape timeout unless it is less than the target's scrape interval value in which the latter is used. The value cannot be greater than the scrape interval otherwise the operator will reject the resource.
        :param target_port: targetPort defines the name or number of the target port of the ``Pod`` object behind the Service. The port must be specified with the container's port property.
        :param tls_config: tlsConfig defines the TLS configuration to use when scraping the target.
        :param track_timestamps_staleness: trackTimestampsStaleness defines whether Prometheus tracks staleness of the metrics that have an explicit timestamp present in scraped data. Has no effect if ``honorTimestamps`` is false. It requires Prometheus >= v2.48.0.

        :schema: ServiceMonitorSpecEndpoints
        '''
        if isinstance(authorization, dict):
            authorization = ServiceMonitorSpecEndpointsAuthorization(**authorization)
        if isinstance(basic_auth, dict):
            basic_auth = ServiceMonitorSpecEndpointsBasicAuth(**basic_auth)
        if isinstance(bearer_token_secret, dict):
            bearer_token_secret = ServiceMonitorSpecEndpointsBearerTokenSecret(**bearer_token_secret)
        if isinstance(oauth2, dict):
            oauth2 = ServiceMonitorSpecEndpointsOauth2(**oauth2)
        if isinstance(tls_config, dict):
            tls_config = ServiceMonitorSpecEndpointsTlsConfig(**tls_config)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0387a341502661c257fa633a8de56a63d951087fafafcbad7e1c75709428ef9f)
            check_type(argname="argument authorization", value=authorization, expected_type=type_hints["authorization"])
            check_type(argname="argument basic_auth", value=basic_auth, expected_type=type_hints["basic_auth"])
            check_type(argname="argument bearer_token_file", value=bearer_token_file, expected_type=type_hints["bearer_token_file"])
            check_type(argname="argument bearer_token_secret", value=bearer_token_secret, expected_type=type_hints["bearer_token_secret"])
            check_type(argname="argument enable_http2", value=enable_http2, expected_type=type_hints["enable_http2"])
            check_type(argname="argument filter_running", value=filter_running, expected_type=type_hints["filter_running"])
            check_type(argname="argument follow_redirects", value=follow_redirects, expected_type=type_hints["follow_redirects"])
            check_type(argname="argument honor_labels", value=honor_labels, expected_type=type_hints["honor_labels"])
            check_type(argname="argument honor_timestamps", value=honor_timestamps, expected_type=type_hints["honor_timestamps"])
            check_type(argname="argument interval", value=interval, expected_type=type_hints["interval"])
            check_type(argname="argument metric_relabelings", value=metric_relabelings, expected_type=type_hints["metric_relabelings"])
            check_type(argname="argument no_proxy", value=no_proxy, expected_type=type_hints["no_proxy"])
            check_type(argname="argument oauth2", value=oauth2, expected_type=type_hints["oauth2"])
            check_type(argname="argument params", value=params, expected_type=type_hints["params"])
            check_type(argname="argument path", value=path, expected_type=type_hints["path"])
            check_type(argname="argument port", value=port, expected_type=type_hints["port"])
            check_type(argname="argument proxy_connect_header", value=proxy_connect_header, expected_type=type_hints["proxy_connect_header"])
            check_type(argname="argument proxy_from_environment", value=proxy_from_environment, expected_type=type_hints["proxy_from_environment"])
            check_type(argname="argument proxy_url", value=proxy_url, expected_type=type_hints["proxy_url"])
            check_type(argname="argument relabelings", value=relabelings, expected_type=type_hints["relabelings"])
            check_type(argname="argument scheme", value=scheme, expected_type=type_hints["scheme"])
            check_type(argname="argument scrape_timeout", value=scrape_timeout, expected_type=type_hints["scrape_timeout"])
            check_type(argname="argument target_port", value=target_port, expected_type=type_hints["target_port"])
            check_type(argname="argument tls_config", value=tls_config, expected_type=type_hints["tls_config"])
            check_type(argname="argument track_timestamps_staleness", value=track_timestamps_staleness, expected_type=type_hints["track_timestamps_staleness"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if authorization is not None:
            self._values["authorization"] = authorization
        if basic_auth is not None:
            self._values["basic_auth"] = basic_auth
        if bearer_token_file is not None:
            self._values["bearer_token_file"] = bearer_token_file
        if bearer_token_secret is not None:
            self._values["bearer_token_secret"] = bearer_token_secret
        if enable_http2 is not None:
            self._values["enable_http2"] = enable_http2
        if filter_running is not None:
            self._values["filter_running"] = filter_running
        if follow_redirects is not None:
            self._values["follow_redirects"] = follow_redirects
        if honor_labels is not None:
            self._values["honor_labels"] = honor_labels
        if honor_timestamps is not None:
            self._values["honor_timestamps"] = honor_timestamps
        if interval is not None:
            self._values["interval"] = interval
        if metric_relabelings is not None:
            self._values["metric_relabelings"] = metric_relabelings
        if no_proxy is not None:
            self._values["no_proxy"] = no_proxy
        if oauth2 is not None:
            self._values["oauth2"] = oauth2
        if params is not None:
            self._values["params"] = params
        if path is not None:
            self._values["path"] = path
        if port is not None:
            self._values["port"] = port
        if proxy_connect_header is not None:
            self._values["proxy_connect_header"] = proxy_connect_header
        if proxy_from_environment is not None:
            self._values["proxy_from_environment"] = proxy_from_environment
        if proxy_url is not None:
            self._values["proxy_url"] = proxy_url
        if relabelings is not None:
            self._values["relabelings"] = relabelings
        if scheme is not None:
            self._values["scheme"] = scheme
        if scrape_timeout is not None:
            self._values["scrape_timeout"] = scrape_timeout
        if target_port is not None:
            self._values["target_port"] = target_port
        if tls_config is not None:
            self._values["tls_config"] = tls_config
        if track_timestamps_staleness is not None:
            self._values["track_timestamps_staleness"] = track_timestamps_staleness

    @builtins.property
    def authorization(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsAuthorization"]:
        '''authorization configures the Authorization header credentials to use when scraping the target.

        Cannot be set at the same time as ``basicAuth``, or ``oauth2``.

        :schema: ServiceMonitorSpecEndpoints#authorization
        '''
        result = self._values.get("authorization")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsAuthorization"], result)

    @builtins.property
    def basic_auth(self) -> typing.Optional["ServiceMonitorSpecEndpointsBasicAuth"]:
        '''basicAuth defines the Basic Authentication credentials to use when scraping the target.

        Cannot be set at the same time as ``authorization``, or ``oauth2``.

        :schema: ServiceMonitorSpecEndpoints#basicAuth
        '''
        result = self._values.get("basic_auth")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsBasicAuth"], result)

    @builtins.property
    def bearer_token_file(self) -> typing.Optional[builtins.str]:
        '''bearerTokenFile defines the file to read bearer token for scraping the target.

        Deprecated: use ``authorization`` instead.

        :schema: ServiceMonitorSpecEndpoints#bearerTokenFile
        '''
        result = self._values.get("bearer_token_file")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def bearer_token_secret(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsBearerTokenSecret"]:
        '''bearerTokenSecret defines a key of a Secret containing the bearer token for scraping targets.

        The secret needs to be in the same namespace
        as the ServiceMonitor object and readable by the Prometheus Operator.

        Deprecated: use ``authorization`` instead.

        :schema: ServiceMonitorSpecEndpoints#bearerTokenSecret
        '''
        result = self._values.get("bearer_token_secret")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsBearerTokenSecret"], result)

    @builtins.property
    def enable_http2(self) -> typing.Optional[builtins.bool]:
        '''enableHttp2 can be used to disable HTTP2 when scraping the target.

        :schema: ServiceMonitorSpecEndpoints#enableHttp2
        '''
        result = self._values.get("enable_http2")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def filter_running(self) -> typing.Optional[builtins.bool]:
        '''filterRunning when true, the pods which are not running (e.g. either in Failed or Succeeded state) are dropped during the target discovery.

        If unset, the filtering is enabled.

        More info: https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-phase

        :schema: ServiceMonitorSpecEndpoints#filterRunning
        '''
        result = self._values.get("filter_running")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def follow_redirects(self) -> typing.Optional[builtins.bool]:
        '''followRedirects defines whether the scrape requests should follow HTTP 3xx redirects.

        :schema: ServiceMonitorSpecEndpoints#followRedirects
        '''
        result = self._values.get("follow_redirects")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def honor_labels(self) -> typing.Optional[builtins.bool]:
        '''honorLabels defines when true the metric's labels when they collide with the target's labels.

        :schema: ServiceMonitorSpecEndpoints#honorLabels
        '''
        result = self._values.get("honor_labels")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def honor_timestamps(self) -> typing.Optional[builtins.bool]:
        '''honorTimestamps defines whether Prometheus preserves the timestamps when exposed by the target.

        :schema: ServiceMonitorSpecEndpoints#honorTimestamps
        '''
        result = self._values.get("honor_timestamps")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def interval(self) -> typing.Optional[builtins.str]:
        '''interval at which Prometheus scrapes the metrics from the target.

        If empty, Prometheus uses the global scrape interval.

        :schema: ServiceMonitorSpecEndpoints#interval
        '''
        result = self._values.get("interval")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def metric_relabelings(
        self,
    ) -> typing.Optional[typing.List["ServiceMonitorSpecEndpointsMetricRelabelings"]]:
        '''metricRelabelings defines the relabeling rules to apply to the samples before ingestion.

        :schema: ServiceMonitorSpecEndpoints#metricRelabelings
        '''
        result = self._values.get("metric_relabelings")
        return typing.cast(typing.Optional[typing.List["ServiceMonitorSpecEndpointsMetricRelabelings"]], result)

    @builtins.property
    def no_proxy(self) -> typing.Optional[builtins.str]:
        '''noProxy defines a comma-separated string that can contain IPs, CIDR notation, domain names that should be excluded from proxying.

        IP and domain names can
        contain port numbers.

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: ServiceMonitorSpecEndpoints#noProxy
        '''
        result = self._values.get("no_proxy")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def oauth2(self) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2"]:
        '''oauth2 defines the OAuth2 settings to use when scraping the target.

        It requires Prometheus >= 2.27.0.

        Cannot be set at the same time as ``authorization``, or ``basicAuth``.

        :schema: ServiceMonitorSpecEndpoints#oauth2
        '''
        result = self._values.get("oauth2")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2"], result)

    @builtins.property
    def params(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, typing.List[builtins.str]]]:
        '''params define optional HTTP URL parameters.

        :schema: ServiceMonitorSpecEndpoints#params
        '''
        result = self._values.get("params")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, typing.List[builtins.str]]], result)

    @builtins.property
    def path(self) -> typing.Optional[builtins.str]:
        '''path defines the HTTP path from which to scrape for metrics.

        If empty, Prometheus uses the default value (e.g. ``/metrics``).

        :schema: ServiceMonitorSpecEndpoints#path
        '''
        result = self._values.get("path")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def port(self) -> typing.Optional[builtins.str]:
        '''port defines the name of the Service port which this endpoint refers to.

        It takes precedence over ``targetPort``.

        :schema: ServiceMonitorSpecEndpoints#port
        '''
        result = self._values.get("port")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def proxy_connect_header(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, typing.List["ServiceMonitorSpecEndpointsProxyConnectHeader"]]]:
        '''proxyConnectHeader optionally specifies headers to send to proxies during CONNECT requests.

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: ServiceMonitorSpecEndpoints#proxyConnectHeader
        '''
        result = self._values.get("proxy_connect_header")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, typing.List["ServiceMonitorSpecEndpointsProxyConnectHeader"]]], result)

    @builtins.property
    def proxy_from_environment(self) -> typing.Optional[builtins.bool]:
        '''proxyFromEnvironment defines whether to use the proxy configuration defined by environment variables (HTTP_PROXY, HTTPS_PROXY, and NO_PROXY).

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: ServiceMonitorSpecEndpoints#proxyFromEnvironment
        '''
        result = self._values.get("proxy_from_environment")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def proxy_url(self) -> typing.Optional[builtins.str]:
        '''proxyUrl defines the HTTP proxy server to use.

        :schema: ServiceMonitorSpecEndpoints#proxyUrl
        '''
        result = self._values.get("proxy_url")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def relabelings(
        self,
    ) -> typing.Optional[typing.List["ServiceMonitorSpecEndpointsRelabelings"]]:
        '''relabelings defines the relabeling rules to apply the target's metadata labels.

        The Operator automatically adds relabelings for a few standard Kubernetes fields.

        The original scrape job's name is available via the ``__tmp_prometheus_job_name`` label.

        More info: https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config

        :schema: ServiceMonitorSpecEndpoints#relabelings
        '''
        result = self._values.get("relabelings")
        return typing.cast(typing.Optional[typing.List["ServiceMonitorSpecEndpointsRelabelings"]], result)

    @builtins.property
    def scheme(self) -> typing.Optional["ServiceMonitorSpecEndpointsScheme"]:
        '''scheme defines the HTTP scheme to use for scraping.

        ``http`` and ``https`` are the expected values unless you rewrite the
        ``__scheme__`` label via relabeling.

        If empty, Prometheus uses the default value ``http``.

        :schema: ServiceMonitorSpecEndpoints#scheme
        '''
        result = self._values.get("scheme")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsScheme"], result)

    @builtins.property
    def scrape_timeout(self) -> typing.Optional[builtins.str]:
        '''scrapeTimeout defines the timeout after which Prometheus considers the scrape to be failed.

        If empty, Prometheus uses the global scrape timeout unless it is less
        than the target's scrape interval value in which the latter is used.
        The value cannot be greater than the scrape interval otherwise the operator will reject the resource.

        :schema: ServiceMonitorSpecEndpoints#scrapeTimeout
        '''
        result = self._values.get("scrape_timeout")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def target_port(self) -> typing.Optional["ServiceMonitorSpecEndpointsTargetPort"]:
        '''targetPort defines the name or number of the target port of the ``Pod`` object behind the Service.

        The port must be specified with the container's port property.

        :schema: ServiceMonitorSpecEndpoints#targetPort
        '''
        result = self._values.get("target_port")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTargetPort"], result)

    @builtins.property
    def tls_config(self) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfig"]:
        '''tlsConfig defines the TLS configuration to use when scraping the target.

        :schema: ServiceMonitorSpecEndpoints#tlsConfig
        '''
        result = self._values.get("tls_config")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfig"], result)

    @builtins.property
    def track_timestamps_staleness(self) -> typing.Optional[builtins.bool]:
        '''trackTimestampsStaleness defines whether Prometheus tracks staleness of the metrics that have an explicit timestamp present in scraped data.

        Has no effect if ``honorTimestamps`` is false.

        It requires Prometheus >= v2.48.0.

        :schema: ServiceMonitorSpecEndpoints#trackTimestampsStaleness
        '''
        result = self._values.get("track_timestamps_staleness")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpoints(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsAuthorization",
    jsii_struct_bases=[],
    name_mapping={"credentials": "credentials", "type": "type"},
)
class ServiceMonitorSpecEndpointsAuthorization:
    def __init__(
        self,
        *,
        credentials: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsAuthorizationCredentials", typing.Dict[builtins.str, typing.Any]]] = None,
        type: typing.Optional[builtins.str] = None,
    ) -> None:
        '''authorization configures the Authorization header credentials to use when scraping the target.

        Cannot be set at the same time as ``basicAuth``, or ``oauth2``.

        :param credentials: credentials defines a key of a Secret in the namespace that contains the credentials for authentication.
        :param type: type defines the authentication type. The value is case-insensitive. "Basic" is not a supported value. Default: "Bearer"

        :schema: ServiceMonitorSpecEndpointsAuthorization
        '''
        if isinstance(credentials, dict):
            credentials = ServiceMonitorSpecEndpointsAuthorizationCredentials(**credentials)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b05be2dbf3d1f785c44186c59ea265d852bfc4c161dd2a667dfb7fb72d3fafab)
            check_type(argname="argument credentials", value=credentials, expected_type=type_hints["credentials"])
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if credentials is not None:
            self._values["credentials"] = credentials
        if type is not None:
            self._values["type"] = type

    @builtins.property
    def credentials(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsAuthorizationCredentials"]:
        '''credentials defines a key of a Secret in the namespace that contains the credentials for authentication.

        :schema: ServiceMonitorSpecEndpointsAuthorization#credentials
        '''
        result = self._values.get("credentials")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsAuthorizationCredentials"], result)

    @builtins.property
    def type(self) -> typing.Optional[builtins.str]:
        '''type defines the authentication type. The value is case-insensitive.

        "Basic" is not a supported value.

        Default: "Bearer"

        :schema: ServiceMonitorSpecEndpointsAuthorization#type
        '''
        result = self._values.get("type")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsAuthorization(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsAuthorizationCredentials",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsAuthorizationCredentials:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''credentials defines a key of a Secret in the namespace that contains the credentials for authentication.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsAuthorizationCredentials
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1c83826f5d1af77f6b472277f612d8fe893abd225721d0ad52a0b6e894c6ca91)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsAuthorizationCredentials#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsAuthorizationCredentials#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsAuthorizationCredentials#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsAuthorizationCredentials(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsBasicAuth",
    jsii_struct_bases=[],
    name_mapping={"password": "password", "username": "username"},
)
class ServiceMonitorSpecEndpointsBasicAuth:
    def __init__(
        self,
        *,
        password: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsBasicAuthPassword", typing.Dict[builtins.str, typing.Any]]] = None,
        username: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsBasicAuthUsername", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''basicAuth defines the Basic Authentication credentials to use when scraping the target.

        Cannot be set at the same time as ``authorization``, or ``oauth2``.

        :param password: password defines a key of a Secret containing the password for authentication.
        :param username: username defines a key of a Secret containing the username for authentication.

        :schema: ServiceMonitorSpecEndpointsBasicAuth
        '''
        if isinstance(password, dict):
            password = ServiceMonitorSpecEndpointsBasicAuthPassword(**password)
        if isinstance(username, dict):
            username = ServiceMonitorSpecEndpointsBasicAuthUsername(**username)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3bb86167c1eb1b7c3cfb101e3ccc00e531d6a4cf5db0187880449cdd1206f66d)
            check_type(argname="argument password", value=password, expected_type=type_hints["password"])
            check_type(argname="argument username", value=username, expected_type=type_hints["username"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if password is not None:
            self._values["password"] = password
        if username is not None:
            self._values["username"] = username

    @builtins.property
    def password(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsBasicAuthPassword"]:
        '''password defines a key of a Secret containing the password for authentication.

        :schema: ServiceMonitorSpecEndpointsBasicAuth#password
        '''
        result = self._values.get("password")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsBasicAuthPassword"], result)

    @builtins.property
    def username(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsBasicAuthUsername"]:
        '''username defines a key of a Secret containing the username for authentication.

        :schema: ServiceMonitorSpecEndpointsBasicAuth#username
        '''
        result = self._values.get("username")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsBasicAuthUsername"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsBasicAuth(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsBasicAuthPassword",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsBasicAuthPassword:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''password defines a key of a Secret containing the password for authentication.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsBasicAuthPassword
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7e0aade533948af8db0e7c96e2e543426177c8f6b9848b8d7d378a3a936439ce)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsBasicAuthPassword#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsBasicAuthPassword#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsBasicAuthPassword#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsBasicAuthPassword(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsBasicAuthUsername",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsBasicAuthUsername:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''username defines a key of a Secret containing the username for authentication.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsBasicAuthUsername
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__650161eb2ae5d4744ac93cdb731365c5ebf1f8ffe3eb9fa80895090d59430fc4)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsBasicAuthUsername#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsBasicAuthUsername#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsBasicAuthUsername#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsBasicAuthUsername(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsBearerTokenSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsBearerTokenSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''bearerTokenSecret defines a key of a Secret containing the bearer token for scraping targets.

        The secret needs to be in the same namespace
        as the ServiceMonitor object and readable by the Prometheus Operator.

        Deprecated: use ``authorization`` instead.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsBearerTokenSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f101e1b8c5f41fb997e62c8c7f7fc1316f2176377c3a84a57a4345a28bafc76d)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsBearerTokenSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsBearerTokenSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsBearerTokenSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsBearerTokenSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsMetricRelabelings",
    jsii_struct_bases=[],
    name_mapping={
        "action": "action",
        "modulus": "modulus",
        "regex": "regex",
        "replacement": "replacement",
        "separator": "separator",
        "source_labels": "sourceLabels",
        "target_label": "targetLabel",
    },
)
class ServiceMonitorSpecEndpointsMetricRelabelings:
    def __init__(
        self,
        *,
        action: typing.Optional["ServiceMonitorSpecEndpointsMetricRelabelingsAction"] = None,
        modulus: typing.Optional[jsii.Number] = None,
        regex: typing.Optional[builtins.str] = None,
        replacement: typing.Optional[builtins.str] = None,
        separator: typing.Optional[builtins.str] = None,
        source_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
        target_label: typing.Optional[builtins.str] = None,
    ) -> None:
        '''RelabelConfig allows dynamic rewriting of the label set for targets, alerts, scraped samples and remote write samples.

        More info: https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config

        :param action: action to perform based on the regex matching. ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0. ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0. Default: "Replace"
        :param modulus: modulus to take of the hash of the source label values. Only applicable when the action is ``HashMod``.
        :param regex: regex defines the regular expression against which the extracted value is matched.
        :param replacement: replacement value against which a Replace action is performed if the regular expression matches. Regex capture groups are available.
        :param separator: separator defines the string between concatenated SourceLabels.
        :param source_labels: sourceLabels defines the source labels select values from existing labels. Their content is concatenated using the configured Separator and matched against the configured regular expression.
        :param target_label: targetLabel defines the label to which the resulting string is written in a replacement. It is mandatory for ``Replace``, ``HashMod``, ``Lowercase``, ``Uppercase``, ``KeepEqual`` and ``DropEqual`` actions. Regex capture groups are available.

        :schema: ServiceMonitorSpecEndpointsMetricRelabelings
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ecdf834c71cee7105eb773035064fc34b431e349772b048e9be974173861c391)
            check_type(argname="argument action", value=action, expected_type=type_hints["action"])
            check_type(argname="argument modulus", value=modulus, expected_type=type_hints["modulus"])
            check_type(argname="argument regex", value=regex, expected_type=type_hints["regex"])
            check_type(argname="argument replacement", value=replacement, expected_type=type_hints["replacement"])
            check_type(argname="argument separator", value=separator, expected_type=type_hints["separator"])
            check_type(argname="argument source_labels", value=source_labels, expected_type=type_hints["source_labels"])
            check_type(argname="argument target_label", value=target_label, expected_type=type_hints["target_label"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if action is not None:
            self._values["action"] = action
        if modulus is not None:
            self._values["modulus"] = modulus
        if regex is not None:
            self._values["regex"] = regex
        if replacement is not None:
            self._values["replacement"] = replacement
        if separator is not None:
            self._values["separator"] = separator
        if source_labels is not None:
            self._values["source_labels"] = source_labels
        if target_label is not None:
            self._values["target_label"] = target_label

    @builtins.property
    def action(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsMetricRelabelingsAction"]:
        '''action to perform based on the regex matching.

        ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0.
        ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0.

        Default: "Replace"

        :schema: ServiceMonitorSpecEndpointsMetricRelabelings#action
        '''
        result = self._values.get("action")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsMetricRelabelingsAction"], result)

    @builtins.property
    def modulus(self) -> typing.Optional[jsii.Number]:
        '''modulus to take of the hash of the source label values.

        Only applicable when the action is ``HashMod``.

        :schema: ServiceMonitorSpecEndpointsMetricRelabelings#modulus
        '''
        result = self._values.get("modulus")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def regex(self) -> typing.Optional[builtins.str]:
        '''regex defines the regular expression against which the extracted value is matched.

        :schema: ServiceMonitorSpecEndpointsMetricRelabelings#regex
        '''
        result = self._values.get("regex")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def replacement(self) -> typing.Optional[builtins.str]:
        '''replacement value against which a Replace action is performed if the regular expression matches.

        Regex capture groups are available.

        :schema: ServiceMonitorSpecEndpointsMetricRelabelings#replacement
        '''
        result = self._values.get("replacement")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def separator(self) -> typing.Optional[builtins.str]:
        '''separator defines the string between concatenated SourceLabels.

        :schema: ServiceMonitorSpecEndpointsMetricRelabelings#separator
        '''
        result = self._values.get("separator")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def source_labels(self) -> typing.Optional[typing.List[builtins.str]]:
        '''sourceLabels defines the source labels select values from existing labels.

        Their content is
        concatenated using the configured Separator and matched against the
        configured regular expression.

        :schema: ServiceMonitorSpecEndpointsMetricRelabelings#sourceLabels
        '''
        result = self._values.get("source_labels")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def target_label(self) -> typing.Optional[builtins.str]:
        '''targetLabel defines the label to which the resulting string is written in a replacement.

        It is mandatory for ``Replace``, ``HashMod``, ``Lowercase``, ``Uppercase``,
        ``KeepEqual`` and ``DropEqual`` actions.

        Regex capture groups are available.

        :schema: ServiceMonitorSpecEndpointsMetricRelabelings#targetLabel
        '''
        result = self._values.get("target_label")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsMetricRelabelings(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsMetricRelabelingsAction"
)
class ServiceMonitorSpecEndpointsMetricRelabelingsAction(enum.Enum):
    '''action to perform based on the regex matching.

    ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0.
    ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0.

    Default: "Replace"

    :schema: ServiceMonitorSpecEndpointsMetricRelabelingsAction
    '''

    REPLACE = "REPLACE"
    '''replace.'''
    KEEP = "KEEP"
    '''keep.'''
    DROP = "DROP"
    '''drop.'''
    HASHMOD = "HASHMOD"
    '''hashmod.'''
    LABELMAP = "LABELMAP"
    '''labelmap.'''
    LABELDROP = "LABELDROP"
    '''labeldrop.'''
    LABELKEEP = "LABELKEEP"
    '''labelkeep.'''
    LOWERCASE = "LOWERCASE"
    '''lowercase.'''
    UPPERCASE = "UPPERCASE"
    '''uppercase.'''
    KEEPEQUAL = "KEEPEQUAL"
    '''keepequal.'''
    DROPEQUAL = "DROPEQUAL"
    '''dropequal.'''


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2",
    jsii_struct_bases=[],
    name_mapping={
        "client_id": "clientId",
        "client_secret": "clientSecret",
        "token_url": "tokenUrl",
        "endpoint_params": "endpointParams",
        "no_proxy": "noProxy",
        "proxy_connect_header": "proxyConnectHeader",
        "proxy_from_environment": "proxyFromEnvironment",
        "proxy_url": "proxyUrl",
        "scopes": "scopes",
        "tls_config": "tlsConfig",
    },
)
class ServiceMonitorSpecEndpointsOauth2:
    def __init__(
        self,
        *,
        client_id: typing.Union["ServiceMonitorSpecEndpointsOauth2ClientId", typing.Dict[builtins.str, typing.Any]],
        client_secret: typing.Union["ServiceMonitorSpecEndpointsOauth2ClientSecret", typing.Dict[builtins.str, typing.Any]],
        token_url: builtins.str,
        endpoint_params: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        no_proxy: typing.Optional[builtins.str] = None,
        proxy_connect_header: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[typing.Union["ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader", typing.Dict[builtins.str, typing.Any]]]]] = None,
        proxy_from_environment: typing.Optional[builtins.bool] = None,
        proxy_url: typing.Optional[builtins.str] = None,
        scopes: typing.Optional[typing.Sequence[builtins.str]] = None,
        tls_config: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2TlsConfig", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''oauth2 defines the OAuth2 settings to use when scraping the target.

        It requires Prometheus >= 2.27.0.

        Cannot be set at the same time as ``authorization``, or ``basicAuth``.

        :param client_id: clientId defines a key of a Secret or ConfigMap containing the OAuth2 client's ID.
        :param client_secret: clientSecret defines a key of a Secret containing the OAuth2 client's secret.
        :param token_url: tokenUrl defines the URL to fetch the token from.
        :param endpoint_params: endpointParams configures the HTTP parameters to append to the token URL.
        :param no_proxy: noProxy defines a comma-separated string that can contain IPs, CIDR notation, domain names that should be excluded from proxying. IP and domain names can contain port numbers. It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param proxy_connect_header: proxyConnectHeader optionally specifies headers to send to proxies during CONNECT requests. It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param proxy_from_environment: proxyFromEnvironment defines whether to use the proxy configuration defined by environment variables (HTTP_PROXY, HTTPS_PROXY, and NO_PROXY). It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param proxy_url: proxyUrl defines the HTTP proxy server to use.
        :param scopes: scopes defines the OAuth2 scopes used for the token request.
        :param tls_config: tlsConfig defines the TLS configuration to use when connecting to the OAuth2 server. It requires Prometheus >= v2.43.0.

        :schema: ServiceMonitorSpecEndpointsOauth2
        '''
        if isinstance(client_id, dict):
            client_id = ServiceMonitorSpecEndpointsOauth2ClientId(**client_id)
        if isinstance(client_secret, dict):
            client_secret = ServiceMonitorSpecEndpointsOauth2ClientSecret(**client_secret)
        if isinstance(tls_config, dict):
            tls_config = ServiceMonitorSpecEndpointsOauth2TlsConfig(**tls_config)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1fbf1a17774c9325051b1afae8b5079d104a808c07e2045229b6a3d401d1fcb4)
            check_type(argname="argument client_id", value=client_id, expected_type=type_hints["client_id"])
            check_type(argname="argument client_secret", value=client_secret, expected_type=type_hints["client_secret"])
            check_type(argname="argument token_url", value=token_url, expected_type=type_hints["token_url"])
            check_type(argname="argument endpoint_params", value=endpoint_params, expected_type=type_hints["endpoint_params"])
            check_type(argname="argument no_proxy", value=no_proxy, expected_type=type_hints["no_proxy"])
            check_type(argname="argument proxy_connect_header", value=proxy_connect_header, expected_type=type_hints["proxy_connect_header"])
            check_type(argname="argument proxy_from_environment", value=proxy_from_environment, expected_type=type_hints["proxy_from_environment"])
            check_type(argname="argument proxy_url", value=proxy_url, expected_type=type_hints["proxy_url"])
            check_type(argname="argument scopes", value=scopes, expected_type=type_hints["scopes"])
            check_type(argname="argument tls_config", value=tls_config, expected_type=type_hints["tls_config"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "client_id": client_id,
            "client_secret": client_secret,
            "token_url": token_url,
        }
        if endpoint_params is not None:
            self._values["endpoint_params"] = endpoint_params
        if no_proxy is not None:
            self._values["no_proxy"] = no_proxy
        if proxy_connect_header is not None:
            self._values["proxy_connect_header"] = proxy_connect_header
        if proxy_from_environment is not None:
            self._values["proxy_from_environment"] = proxy_from_environment
        if proxy_url is not None:
            self._values["proxy_url"] = proxy_url
        if scopes is not None:
            self._values["scopes"] = scopes
        if tls_config is not None:
            self._values["tls_config"] = tls_config

    @builtins.property
    def client_id(self) -> "ServiceMonitorSpecEndpointsOauth2ClientId":
        '''clientId defines a key of a Secret or ConfigMap containing the OAuth2 client's ID.

        :schema: ServiceMonitorSpecEndpointsOauth2#clientId
        '''
        result = self._values.get("client_id")
        assert result is not None, "Required property 'client_id' is missing"
        return typing.cast("ServiceMonitorSpecEndpointsOauth2ClientId", result)

    @builtins.property
    def client_secret(self) -> "ServiceMonitorSpecEndpointsOauth2ClientSecret":
        '''clientSecret defines a key of a Secret containing the OAuth2 client's secret.

        :schema: ServiceMonitorSpecEndpointsOauth2#clientSecret
        '''
        result = self._values.get("client_secret")
        assert result is not None, "Required property 'client_secret' is missing"
        return typing.cast("ServiceMonitorSpecEndpointsOauth2ClientSecret", result)

    @builtins.property
    def token_url(self) -> builtins.str:
        '''tokenUrl defines the URL to fetch the token from.

        :schema: ServiceMonitorSpecEndpointsOauth2#tokenUrl
        '''
        result = self._values.get("token_url")
        assert result is not None, "Required property 'token_url' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def endpoint_params(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''endpointParams configures the HTTP parameters to append to the token URL.

        :schema: ServiceMonitorSpecEndpointsOauth2#endpointParams
        '''
        result = self._values.get("endpoint_params")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def no_proxy(self) -> typing.Optional[builtins.str]:
        '''noProxy defines a comma-separated string that can contain IPs, CIDR notation, domain names that should be excluded from proxying.

        IP and domain names can
        contain port numbers.

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: ServiceMonitorSpecEndpointsOauth2#noProxy
        '''
        result = self._values.get("no_proxy")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def proxy_connect_header(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, typing.List["ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader"]]]:
        '''proxyConnectHeader optionally specifies headers to send to proxies during CONNECT requests.

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: ServiceMonitorSpecEndpointsOauth2#proxyConnectHeader
        '''
        result = self._values.get("proxy_connect_header")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, typing.List["ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader"]]], result)

    @builtins.property
    def proxy_from_environment(self) -> typing.Optional[builtins.bool]:
        '''proxyFromEnvironment defines whether to use the proxy configuration defined by environment variables (HTTP_PROXY, HTTPS_PROXY, and NO_PROXY).

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: ServiceMonitorSpecEndpointsOauth2#proxyFromEnvironment
        '''
        result = self._values.get("proxy_from_environment")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def proxy_url(self) -> typing.Optional[builtins.str]:
        '''proxyUrl defines the HTTP proxy server to use.

        :schema: ServiceMonitorSpecEndpointsOauth2#proxyUrl
        '''
        result = self._values.get("proxy_url")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def scopes(self) -> typing.Optional[typing.List[builtins.str]]:
        '''scopes defines the OAuth2 scopes used for the token request.

        :schema: ServiceMonitorSpecEndpointsOauth2#scopes
        '''
        result = self._values.get("scopes")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def tls_config(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfig"]:
        '''tlsConfig defines the TLS configuration to use when connecting to the OAuth2 server.

        It requires Prometheus >= v2.43.0.

        :schema: ServiceMonitorSpecEndpointsOauth2#tlsConfig
        '''
        result = self._values.get("tls_config")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfig"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2ClientId",
    jsii_struct_bases=[],
    name_mapping={"config_map": "configMap", "secret": "secret"},
)
class ServiceMonitorSpecEndpointsOauth2ClientId:
    def __init__(
        self,
        *,
        config_map: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap", typing.Dict[builtins.str, typing.Any]]] = None,
        secret: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2ClientIdSecret", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''clientId defines a key of a Secret or ConfigMap containing the OAuth2 client's ID.

        :param config_map: configMap defines the ConfigMap containing data to use for the targets.
        :param secret: secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientId
        '''
        if isinstance(config_map, dict):
            config_map = ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap(**config_map)
        if isinstance(secret, dict):
            secret = ServiceMonitorSpecEndpointsOauth2ClientIdSecret(**secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6b23a4d24eb9eb69c5d201cdffad8413acfa1f419c8a41a1d59e60b419084b5e)
            check_type(argname="argument config_map", value=config_map, expected_type=type_hints["config_map"])
            check_type(argname="argument secret", value=secret, expected_type=type_hints["secret"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if config_map is not None:
            self._values["config_map"] = config_map
        if secret is not None:
            self._values["secret"] = secret

    @builtins.property
    def config_map(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap"]:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientId#configMap
        '''
        result = self._values.get("config_map")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap"], result)

    @builtins.property
    def secret(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2ClientIdSecret"]:
        '''secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientId#secret
        '''
        result = self._values.get("secret")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2ClientIdSecret"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2ClientId(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ec94d0b7ad6b1d19e33b596d14da05ba8a4e7ca4ca951dc592d31e9d25189676)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2ClientIdSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2ClientIdSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''secret defines the Secret containing data to use for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientIdSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__87adb09a12da5a2e30ed878fc51cb100bb3d1390ff6aaef2644476c51f4cff23)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientIdSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2ClientIdSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientIdSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2ClientIdSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2ClientSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2ClientSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''clientSecret defines a key of a Secret containing the OAuth2 client's secret.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d2a5f493304f38e2b06749204c2233f60863fb580f98104b324a73426c3f8810)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2ClientSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2ClientSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2ClientSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''SecretKeySelector selects a key of a Secret.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__baf4e3c0471ec4b2fa1df354aa463cd2af1209915d5b9f06f34ca01eaa858a81)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfig",
    jsii_struct_bases=[],
    name_mapping={
        "ca": "ca",
        "cert": "cert",
        "insecure_skip_verify": "insecureSkipVerify",
        "key_secret": "keySecret",
        "max_version": "maxVersion",
        "min_version": "minVersion",
        "server_name": "serverName",
    },
)
class ServiceMonitorSpecEndpointsOauth2TlsConfig:
    def __init__(
        self,
        *,
        ca: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2TlsConfigCa", typing.Dict[builtins.str, typing.Any]]] = None,
        cert: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2TlsConfigCert", typing.Dict[builtins.str, typing.Any]]] = None,
        insecure_skip_verify: typing.Optional[builtins.bool] = None,
        key_secret: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret", typing.Dict[builtins.str, typing.Any]]] = None,
        max_version: typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigMaxVersion"] = None,
        min_version: typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigMinVersion"] = None,
        server_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''tlsConfig defines the TLS configuration to use when connecting to the OAuth2 server.

        It requires Prometheus >= v2.43.0.

        :param ca: ca defines the Certificate authority used when verifying server certificates.
        :param cert: cert defines the Client certificate to present when doing client-authentication.
        :param insecure_skip_verify: insecureSkipVerify defines how to disable target certificate validation.
        :param key_secret: keySecret defines the Secret containing the client key file for the targets.
        :param max_version: maxVersion defines the maximum acceptable TLS version. It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.
        :param min_version: minVersion defines the minimum acceptable TLS version. It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.
        :param server_name: serverName is used to verify the hostname for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfig
        '''
        if isinstance(ca, dict):
            ca = ServiceMonitorSpecEndpointsOauth2TlsConfigCa(**ca)
        if isinstance(cert, dict):
            cert = ServiceMonitorSpecEndpointsOauth2TlsConfigCert(**cert)
        if isinstance(key_secret, dict):
            key_secret = ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret(**key_secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b35255ec2174c1336ffa23c2397f9d9d5733e2b716f7665ed12ca6cf9db5028a)
            check_type(argname="argument ca", value=ca, expected_type=type_hints["ca"])
            check_type(argname="argument cert", value=cert, expected_type=type_hints["cert"])
            check_type(argname="argument insecure_skip_verify", value=insecure_skip_verify, expected_type=type_hints["insecure_skip_verify"])
            check_type(argname="argument key_secret", value=key_secret, expected_type=type_hints["key_secret"])
            check_type(argname="argument max_version", value=max_version, expected_type=type_hints["max_version"])
            check_type(argname="argument min_version", value=min_version, expected_type=type_hints["min_version"])
            check_type(argname="argument server_name", value=server_name, expected_type=type_hints["server_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if ca is not None:
            self._values["ca"] = ca
        if cert is not None:
            self._values["cert"] = cert
        if insecure_skip_verify is not None:
            self._values["insecure_skip_verify"] = insecure_skip_verify
        if key_secret is not None:
            self._values["key_secret"] = key_secret
        if max_version is not None:
            self._values["max_version"] = max_version
        if min_version is not None:
            self._values["min_version"] = min_version
        if server_name is not None:
            self._values["server_name"] = server_name

    @builtins.property
    def ca(self) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCa"]:
        '''ca defines the Certificate authority used when verifying server certificates.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfig#ca
        '''
        result = self._values.get("ca")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCa"], result)

    @builtins.property
    def cert(self) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCert"]:
        '''cert defines the Client certificate to present when doing client-authentication.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfig#cert
        '''
        result = self._values.get("cert")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCert"], result)

    @builtins.property
    def insecure_skip_verify(self) -> typing.Optional[builtins.bool]:
        '''insecureSkipVerify defines how to disable target certificate validation.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfig#insecureSkipVerify
        '''
        result = self._values.get("insecure_skip_verify")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def key_secret(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret"]:
        '''keySecret defines the Secret containing the client key file for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfig#keySecret
        '''
        result = self._values.get("key_secret")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret"], result)

    @builtins.property
    def max_version(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigMaxVersion"]:
        '''maxVersion defines the maximum acceptable TLS version.

        It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfig#maxVersion
        '''
        result = self._values.get("max_version")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigMaxVersion"], result)

    @builtins.property
    def min_version(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigMinVersion"]:
        '''minVersion defines the minimum acceptable TLS version.

        It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfig#minVersion
        '''
        result = self._values.get("min_version")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigMinVersion"], result)

    @builtins.property
    def server_name(self) -> typing.Optional[builtins.str]:
        '''serverName is used to verify the hostname for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfig#serverName
        '''
        result = self._values.get("server_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2TlsConfig(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigCa",
    jsii_struct_bases=[],
    name_mapping={"config_map": "configMap", "secret": "secret"},
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigCa:
    def __init__(
        self,
        *,
        config_map: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap", typing.Dict[builtins.str, typing.Any]]] = None,
        secret: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ca defines the Certificate authority used when verifying server certificates.

        :param config_map: configMap defines the ConfigMap containing data to use for the targets.
        :param secret: secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCa
        '''
        if isinstance(config_map, dict):
            config_map = ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap(**config_map)
        if isinstance(secret, dict):
            secret = ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret(**secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__af2c136274b4b750305604f68d84680e2b4345fa24e6183a508408d0e145c5b9)
            check_type(argname="argument config_map", value=config_map, expected_type=type_hints["config_map"])
            check_type(argname="argument secret", value=secret, expected_type=type_hints["secret"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if config_map is not None:
            self._values["config_map"] = config_map
        if secret is not None:
            self._values["secret"] = secret

    @builtins.property
    def config_map(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap"]:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCa#configMap
        '''
        result = self._values.get("config_map")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap"], result)

    @builtins.property
    def secret(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret"]:
        '''secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCa#secret
        '''
        result = self._values.get("secret")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2TlsConfigCa(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__4f733ecb9c6c03b0398a6edd3ff1d2c19f707c22fd2788dd5278e1855aa2bdf3)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''secret defines the Secret containing data to use for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__85a4161d0987c009764d17cdf094ee8aea681edf01066684b6ca4493c317fab8)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigCert",
    jsii_struct_bases=[],
    name_mapping={"config_map": "configMap", "secret": "secret"},
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigCert:
    def __init__(
        self,
        *,
        config_map: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap", typing.Dict[builtins.str, typing.Any]]] = None,
        secret: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''cert defines the Client certificate to present when doing client-authentication.

        :param config_map: configMap defines the ConfigMap containing data to use for the targets.
        :param secret: secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCert
        '''
        if isinstance(config_map, dict):
            config_map = ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap(**config_map)
        if isinstance(secret, dict):
            secret = ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret(**secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3c4b20159d0c3a83579d22cb1a045729b923731d6b68744bba82d6398f242b4a)
            check_type(argname="argument config_map", value=config_map, expected_type=type_hints["config_map"])
            check_type(argname="argument secret", value=secret, expected_type=type_hints["secret"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if config_map is not None:
            self._values["config_map"] = config_map
        if secret is not None:
            self._values["secret"] = secret

    @builtins.property
    def config_map(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap"]:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCert#configMap
        '''
        result = self._values.get("config_map")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap"], result)

    @builtins.property
    def secret(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret"]:
        '''secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCert#secret
        '''
        result = self._values.get("secret")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2TlsConfigCert(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c6be5496dd49fe73795f886d2da410ab862f79a58637f6604655dfdcd0a87703)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''secret defines the Secret containing data to use for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9504701e5b5dfe1c5cb53e5d92098578be7ce6189cb6b716e3bea0dd87b261b8)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''keySecret defines the Secret containing the client key file for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__232c1b4dee109c8cbd78169e29345510e84988dd19ac3da3b776d00e4f8b9052)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigMaxVersion"
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigMaxVersion(enum.Enum):
    '''maxVersion defines the maximum acceptable TLS version.

    It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.

    :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigMaxVersion
    '''

    TLS10 = "TLS10"
    '''TLS10.'''
    TLS11 = "TLS11"
    '''TLS11.'''
    TLS12 = "TLS12"
    '''TLS12.'''
    TLS13 = "TLS13"
    '''TLS13.'''


@jsii.enum(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsOauth2TlsConfigMinVersion"
)
class ServiceMonitorSpecEndpointsOauth2TlsConfigMinVersion(enum.Enum):
    '''minVersion defines the minimum acceptable TLS version.

    It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.

    :schema: ServiceMonitorSpecEndpointsOauth2TlsConfigMinVersion
    '''

    TLS10 = "TLS10"
    '''TLS10.'''
    TLS11 = "TLS11"
    '''TLS11.'''
    TLS12 = "TLS12"
    '''TLS12.'''
    TLS13 = "TLS13"
    '''TLS13.'''


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsProxyConnectHeader",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsProxyConnectHeader:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''SecretKeySelector selects a key of a Secret.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsProxyConnectHeader
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__af7ff9bf850f6229a5a446f1891c3694482531b8efb09e8e46753a797a87f74f)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsProxyConnectHeader#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsProxyConnectHeader#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsProxyConnectHeader#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsProxyConnectHeader(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsRelabelings",
    jsii_struct_bases=[],
    name_mapping={
        "action": "action",
        "modulus": "modulus",
        "regex": "regex",
        "replacement": "replacement",
        "separator": "separator",
        "source_labels": "sourceLabels",
        "target_label": "targetLabel",
    },
)
class ServiceMonitorSpecEndpointsRelabelings:
    def __init__(
        self,
        *,
        action: typing.Optional["ServiceMonitorSpecEndpointsRelabelingsAction"] = None,
        modulus: typing.Optional[jsii.Number] = None,
        regex: typing.Optional[builtins.str] = None,
        replacement: typing.Optional[builtins.str] = None,
        separator: typing.Optional[builtins.str] = None,
        source_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
        target_label: typing.Optional[builtins.str] = None,
    ) -> None:
        '''RelabelConfig allows dynamic rewriting of the label set for targets, alerts, scraped samples and remote write samples.

        More info: https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config

        :param action: action to perform based on the regex matching. ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0. ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0. Default: "Replace"
        :param modulus: modulus to take of the hash of the source label values. Only applicable when the action is ``HashMod``.
        :param regex: regex defines the regular expression against which the extracted value is matched.
        :param replacement: replacement value against which a Replace action is performed if the regular expression matches. Regex capture groups are available.
        :param separator: separator defines the string between concatenated SourceLabels.
        :param source_labels: sourceLabels defines the source labels select values from existing labels. Their content is concatenated using the configured Separator and matched against the configured regular expression.
        :param target_label: targetLabel defines the label to which the resulting string is written in a replacement. It is mandatory for ``Replace``, ``HashMod``, ``Lowercase``, ``Uppercase``, ``KeepEqual`` and ``DropEqual`` actions. Regex capture groups are available.

        :schema: ServiceMonitorSpecEndpointsRelabelings
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2635c776631324d4d88ad60676fe0b6bf4e435f64f67f6bd98c0af6e1a54b3d7)
            check_type(argname="argument action", value=action, expected_type=type_hints["action"])
            check_type(argname="argument modulus", value=modulus, expected_type=type_hints["modulus"])
            check_type(argname="argument regex", value=regex, expected_type=type_hints["regex"])
            check_type(argname="argument replacement", value=replacement, expected_type=type_hints["replacement"])
            check_type(argname="argument separator", value=separator, expected_type=type_hints["separator"])
            check_type(argname="argument source_labels", value=source_labels, expected_type=type_hints["source_labels"])
            check_type(argname="argument target_label", value=target_label, expected_type=type_hints["target_label"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if action is not None:
            self._values["action"] = action
        if modulus is not None:
            self._values["modulus"] = modulus
        if regex is not None:
            self._values["regex"] = regex
        if replacement is not None:
            self._values["replacement"] = replacement
        if separator is not None:
            self._values["separator"] = separator
        if source_labels is not None:
            self._values["source_labels"] = source_labels
        if target_label is not None:
            self._values["target_label"] = target_label

    @builtins.property
    def action(self) -> typing.Optional["ServiceMonitorSpecEndpointsRelabelingsAction"]:
        '''action to perform based on the regex matching.

        ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0.
        ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0.

        Default: "Replace"

        :schema: ServiceMonitorSpecEndpointsRelabelings#action
        '''
        result = self._values.get("action")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsRelabelingsAction"], result)

    @builtins.property
    def modulus(self) -> typing.Optional[jsii.Number]:
        '''modulus to take of the hash of the source label values.

        Only applicable when the action is ``HashMod``.

        :schema: ServiceMonitorSpecEndpointsRelabelings#modulus
        '''
        result = self._values.get("modulus")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def regex(self) -> typing.Optional[builtins.str]:
        '''regex defines the regular expression against which the extracted value is matched.

        :schema: ServiceMonitorSpecEndpointsRelabelings#regex
        '''
        result = self._values.get("regex")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def replacement(self) -> typing.Optional[builtins.str]:
        '''replacement value against which a Replace action is performed if the regular expression matches.

        Regex capture groups are available.

        :schema: ServiceMonitorSpecEndpointsRelabelings#replacement
        '''
        result = self._values.get("replacement")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def separator(self) -> typing.Optional[builtins.str]:
        '''separator defines the string between concatenated SourceLabels.

        :schema: ServiceMonitorSpecEndpointsRelabelings#separator
        '''
        result = self._values.get("separator")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def source_labels(self) -> typing.Optional[typing.List[builtins.str]]:
        '''sourceLabels defines the source labels select values from existing labels.

        Their content is
        concatenated using the configured Separator and matched against the
        configured regular expression.

        :schema: ServiceMonitorSpecEndpointsRelabelings#sourceLabels
        '''
        result = self._values.get("source_labels")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def target_label(self) -> typing.Optional[builtins.str]:
        '''targetLabel defines the label to which the resulting string is written in a replacement.

        It is mandatory for ``Replace``, ``HashMod``, ``Lowercase``, ``Uppercase``,
        ``KeepEqual`` and ``DropEqual`` actions.

        Regex capture groups are available.

        :schema: ServiceMonitorSpecEndpointsRelabelings#targetLabel
        '''
        result = self._values.get("target_label")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsRelabelings(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsRelabelingsAction"
)
class ServiceMonitorSpecEndpointsRelabelingsAction(enum.Enum):
    '''action to perform based on the regex matching.

    ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0.
    ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0.

    Default: "Replace"

    :schema: ServiceMonitorSpecEndpointsRelabelingsAction
    '''

    REPLACE = "REPLACE"
    '''replace.'''
    KEEP = "KEEP"
    '''keep.'''
    DROP = "DROP"
    '''drop.'''
    HASHMOD = "HASHMOD"
    '''hashmod.'''
    LABELMAP = "LABELMAP"
    '''labelmap.'''
    LABELDROP = "LABELDROP"
    '''labeldrop.'''
    LABELKEEP = "LABELKEEP"
    '''labelkeep.'''
    LOWERCASE = "LOWERCASE"
    '''lowercase.'''
    UPPERCASE = "UPPERCASE"
    '''uppercase.'''
    KEEPEQUAL = "KEEPEQUAL"
    '''keepequal.'''
    DROPEQUAL = "DROPEQUAL"
    '''dropequal.'''


@jsii.enum(jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsScheme")
class ServiceMonitorSpecEndpointsScheme(enum.Enum):
    '''scheme defines the HTTP scheme to use for scraping.

    ``http`` and ``https`` are the expected values unless you rewrite the
    ``__scheme__`` label via relabeling.

    If empty, Prometheus uses the default value ``http``.

    :schema: ServiceMonitorSpecEndpointsScheme
    '''

    HTTP = "HTTP"
    '''http.'''
    HTTPS = "HTTPS"
    '''https.'''


class ServiceMonitorSpecEndpointsTargetPort(
    metaclass=jsii.JSIIMeta,
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsTargetPort",
):
    '''targetPort defines the name or number of the target port of the ``Pod`` object behind the Service.

    The port must be specified with the container's port property.

    :schema: ServiceMonitorSpecEndpointsTargetPort
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "ServiceMonitorSpecEndpointsTargetPort":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__921466a7217a2e8c0331771b9a8e0d0eae5bcaaf21ce66143ab70c1574377ef4)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ServiceMonitorSpecEndpointsTargetPort", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ServiceMonitorSpecEndpointsTargetPort":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__637b86ffabdc810a999e12c8ef0d4865b9dcb222e2b33b3127f2d5d298cb04fa)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ServiceMonitorSpecEndpointsTargetPort", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfig",
    jsii_struct_bases=[],
    name_mapping={
        "ca": "ca",
        "ca_file": "caFile",
        "cert": "cert",
        "cert_file": "certFile",
        "insecure_skip_verify": "insecureSkipVerify",
        "key_file": "keyFile",
        "key_secret": "keySecret",
        "max_version": "maxVersion",
        "min_version": "minVersion",
        "server_name": "serverName",
    },
)
class ServiceMonitorSpecEndpointsTlsConfig:
    def __init__(
        self,
        *,
        ca: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsTlsConfigCa", typing.Dict[builtins.str, typing.Any]]] = None,
        ca_file: typing.Optional[builtins.str] = None,
        cert: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsTlsConfigCert", typing.Dict[builtins.str, typing.Any]]] = None,
        cert_file: typing.Optional[builtins.str] = None,
        insecure_skip_verify: typing.Optional[builtins.bool] = None,
        key_file: typing.Optional[builtins.str] = None,
        key_secret: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsTlsConfigKeySecret", typing.Dict[builtins.str, typing.Any]]] = None,
        max_version: typing.Optional["ServiceMonitorSpecEndpointsTlsConfigMaxVersion"] = None,
        min_version: typing.Optional["ServiceMonitorSpecEndpointsTlsConfigMinVersion"] = None,
        server_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''tlsConfig defines the TLS configuration to use when scraping the target.

        :param ca: ca defines the Certificate authority used when verifying server certificates.
        :param ca_file: caFile defines the path to the CA cert in the Prometheus container to use for the targets.
        :param cert: cert defines the Client certificate to present when doing client-authentication.
        :param cert_file: certFile defines the path to the client cert file in the Prometheus container for the targets.
        :param insecure_skip_verify: insecureSkipVerify defines how to disable target certificate validation.
        :param key_file: keyFile defines the path to the client key file in the Prometheus container for the targets.
        :param key_secret: keySecret defines the Secret containing the client key file for the targets.
        :param max_version: maxVersion defines the maximum acceptable TLS version. It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.
        :param min_version: minVersion defines the minimum acceptable TLS version. It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.
        :param server_name: serverName is used to verify the hostname for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfig
        '''
        if isinstance(ca, dict):
            ca = ServiceMonitorSpecEndpointsTlsConfigCa(**ca)
        if isinstance(cert, dict):
            cert = ServiceMonitorSpecEndpointsTlsConfigCert(**cert)
        if isinstance(key_secret, dict):
            key_secret = ServiceMonitorSpecEndpointsTlsConfigKeySecret(**key_secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b3f61ccd8cbac6223a039c16101703c8606ce1f842334d316300d980bb74ee2d)
            check_type(argname="argument ca", value=ca, expected_type=type_hints["ca"])
            check_type(argname="argument ca_file", value=ca_file, expected_type=type_hints["ca_file"])
            check_type(argname="argument cert", value=cert, expected_type=type_hints["cert"])
            check_type(argname="argument cert_file", value=cert_file, expected_type=type_hints["cert_file"])
            check_type(argname="argument insecure_skip_verify", value=insecure_skip_verify, expected_type=type_hints["insecure_skip_verify"])
            check_type(argname="argument key_file", value=key_file, expected_type=type_hints["key_file"])
            check_type(argname="argument key_secret", value=key_secret, expected_type=type_hints["key_secret"])
            check_type(argname="argument max_version", value=max_version, expected_type=type_hints["max_version"])
            check_type(argname="argument min_version", value=min_version, expected_type=type_hints["min_version"])
            check_type(argname="argument server_name", value=server_name, expected_type=type_hints["server_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if ca is not None:
            self._values["ca"] = ca
        if ca_file is not None:
            self._values["ca_file"] = ca_file
        if cert is not None:
            self._values["cert"] = cert
        if cert_file is not None:
            self._values["cert_file"] = cert_file
        if insecure_skip_verify is not None:
            self._values["insecure_skip_verify"] = insecure_skip_verify
        if key_file is not None:
            self._values["key_file"] = key_file
        if key_secret is not None:
            self._values["key_secret"] = key_secret
        if max_version is not None:
            self._values["max_version"] = max_version
        if min_version is not None:
            self._values["min_version"] = min_version
        if server_name is not None:
            self._values["server_name"] = server_name

    @builtins.property
    def ca(self) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCa"]:
        '''ca defines the Certificate authority used when verifying server certificates.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#ca
        '''
        result = self._values.get("ca")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCa"], result)

    @builtins.property
    def ca_file(self) -> typing.Optional[builtins.str]:
        '''caFile defines the path to the CA cert in the Prometheus container to use for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#caFile
        '''
        result = self._values.get("ca_file")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def cert(self) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCert"]:
        '''cert defines the Client certificate to present when doing client-authentication.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#cert
        '''
        result = self._values.get("cert")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCert"], result)

    @builtins.property
    def cert_file(self) -> typing.Optional[builtins.str]:
        '''certFile defines the path to the client cert file in the Prometheus container for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#certFile
        '''
        result = self._values.get("cert_file")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def insecure_skip_verify(self) -> typing.Optional[builtins.bool]:
        '''insecureSkipVerify defines how to disable target certificate validation.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#insecureSkipVerify
        '''
        result = self._values.get("insecure_skip_verify")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def key_file(self) -> typing.Optional[builtins.str]:
        '''keyFile defines the path to the client key file in the Prometheus container for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#keyFile
        '''
        result = self._values.get("key_file")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def key_secret(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigKeySecret"]:
        '''keySecret defines the Secret containing the client key file for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#keySecret
        '''
        result = self._values.get("key_secret")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigKeySecret"], result)

    @builtins.property
    def max_version(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigMaxVersion"]:
        '''maxVersion defines the maximum acceptable TLS version.

        It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#maxVersion
        '''
        result = self._values.get("max_version")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigMaxVersion"], result)

    @builtins.property
    def min_version(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigMinVersion"]:
        '''minVersion defines the minimum acceptable TLS version.

        It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#minVersion
        '''
        result = self._values.get("min_version")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigMinVersion"], result)

    @builtins.property
    def server_name(self) -> typing.Optional[builtins.str]:
        '''serverName is used to verify the hostname for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfig#serverName
        '''
        result = self._values.get("server_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsTlsConfig(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigCa",
    jsii_struct_bases=[],
    name_mapping={"config_map": "configMap", "secret": "secret"},
)
class ServiceMonitorSpecEndpointsTlsConfigCa:
    def __init__(
        self,
        *,
        config_map: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsTlsConfigCaConfigMap", typing.Dict[builtins.str, typing.Any]]] = None,
        secret: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsTlsConfigCaSecret", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ca defines the Certificate authority used when verifying server certificates.

        :param config_map: configMap defines the ConfigMap containing data to use for the targets.
        :param secret: secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCa
        '''
        if isinstance(config_map, dict):
            config_map = ServiceMonitorSpecEndpointsTlsConfigCaConfigMap(**config_map)
        if isinstance(secret, dict):
            secret = ServiceMonitorSpecEndpointsTlsConfigCaSecret(**secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__bd0e3bda2c9cf9f5c7ebe493483bb7890dd7b12e129f323712b0d1b5bcf35c6b)
            check_type(argname="argument config_map", value=config_map, expected_type=type_hints["config_map"])
            check_type(argname="argument secret", value=secret, expected_type=type_hints["secret"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if config_map is not None:
            self._values["config_map"] = config_map
        if secret is not None:
            self._values["secret"] = secret

    @builtins.property
    def config_map(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCaConfigMap"]:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCa#configMap
        '''
        result = self._values.get("config_map")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCaConfigMap"], result)

    @builtins.property
    def secret(self) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCaSecret"]:
        '''secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCa#secret
        '''
        result = self._values.get("secret")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCaSecret"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsTlsConfigCa(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigCaConfigMap",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsTlsConfigCaConfigMap:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCaConfigMap
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8f281050edbf368ccdc8635525823ea5e2a98d556fc88178a1b5496e01c1d173)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCaConfigMap#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsTlsConfigCaConfigMap#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCaConfigMap#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsTlsConfigCaConfigMap(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigCaSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsTlsConfigCaSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''secret defines the Secret containing data to use for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCaSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f85e562e9ea5ccc14e6f2ebb0dfa3bec9acedd855dd37e3454e187f0f3eda4ee)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCaSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsTlsConfigCaSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCaSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsTlsConfigCaSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigCert",
    jsii_struct_bases=[],
    name_mapping={"config_map": "configMap", "secret": "secret"},
)
class ServiceMonitorSpecEndpointsTlsConfigCert:
    def __init__(
        self,
        *,
        config_map: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsTlsConfigCertConfigMap", typing.Dict[builtins.str, typing.Any]]] = None,
        secret: typing.Optional[typing.Union["ServiceMonitorSpecEndpointsTlsConfigCertSecret", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''cert defines the Client certificate to present when doing client-authentication.

        :param config_map: configMap defines the ConfigMap containing data to use for the targets.
        :param secret: secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCert
        '''
        if isinstance(config_map, dict):
            config_map = ServiceMonitorSpecEndpointsTlsConfigCertConfigMap(**config_map)
        if isinstance(secret, dict):
            secret = ServiceMonitorSpecEndpointsTlsConfigCertSecret(**secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__cc6582fab979e22866d67d8ec9ed1ca599a28e957aa40db8821f3884224dd8c9)
            check_type(argname="argument config_map", value=config_map, expected_type=type_hints["config_map"])
            check_type(argname="argument secret", value=secret, expected_type=type_hints["secret"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if config_map is not None:
            self._values["config_map"] = config_map
        if secret is not None:
            self._values["secret"] = secret

    @builtins.property
    def config_map(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCertConfigMap"]:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCert#configMap
        '''
        result = self._values.get("config_map")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCertConfigMap"], result)

    @builtins.property
    def secret(
        self,
    ) -> typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCertSecret"]:
        '''secret defines the Secret containing data to use for the targets.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCert#secret
        '''
        result = self._values.get("secret")
        return typing.cast(typing.Optional["ServiceMonitorSpecEndpointsTlsConfigCertSecret"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsTlsConfigCert(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigCertConfigMap",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsTlsConfigCertConfigMap:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCertConfigMap
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b7438f334d5518e8db9c8f8f9d7b7eae5d251d0d23c70c6c81de817a9aaca462)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCertConfigMap#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsTlsConfigCertConfigMap#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCertConfigMap#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsTlsConfigCertConfigMap(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigCertSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsTlsConfigCertSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''secret defines the Secret containing data to use for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCertSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e3376a030f3eeef358b5a57d83bb8f17fec010fde7f20bcf209b46ab4c63161c)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCertSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsTlsConfigCertSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigCertSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsTlsConfigCertSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigKeySecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class ServiceMonitorSpecEndpointsTlsConfigKeySecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''keySecret defines the Secret containing the client key file for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigKeySecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a121bd59efac998876b4760c4d96a77dbcfcab89ff8734d421528126d32553a9)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: ServiceMonitorSpecEndpointsTlsConfigKeySecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: ServiceMonitorSpecEndpointsTlsConfigKeySecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: ServiceMonitorSpecEndpointsTlsConfigKeySecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecEndpointsTlsConfigKeySecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigMaxVersion"
)
class ServiceMonitorSpecEndpointsTlsConfigMaxVersion(enum.Enum):
    '''maxVersion defines the maximum acceptable TLS version.

    It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.

    :schema: ServiceMonitorSpecEndpointsTlsConfigMaxVersion
    '''

    TLS10 = "TLS10"
    '''TLS10.'''
    TLS11 = "TLS11"
    '''TLS11.'''
    TLS12 = "TLS12"
    '''TLS12.'''
    TLS13 = "TLS13"
    '''TLS13.'''


@jsii.enum(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecEndpointsTlsConfigMinVersion"
)
class ServiceMonitorSpecEndpointsTlsConfigMinVersion(enum.Enum):
    '''minVersion defines the minimum acceptable TLS version.

    It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.

    :schema: ServiceMonitorSpecEndpointsTlsConfigMinVersion
    '''

    TLS10 = "TLS10"
    '''TLS10.'''
    TLS11 = "TLS11"
    '''TLS11.'''
    TLS12 = "TLS12"
    '''TLS12.'''
    TLS13 = "TLS13"
    '''TLS13.'''


@jsii.enum(jsii_type="comcoreosmonitoring.ServiceMonitorSpecFallbackScrapeProtocol")
class ServiceMonitorSpecFallbackScrapeProtocol(enum.Enum):
    '''fallbackScrapeProtocol defines the protocol to use if a scrape returns blank, unparseable, or otherwise invalid Content-Type.

    It requires Prometheus >= v3.0.0.

    :schema: ServiceMonitorSpecFallbackScrapeProtocol
    '''

    PROMETHEUS_PROTO = "PROMETHEUS_PROTO"
    '''PrometheusProto.'''
    OPEN_METRICS_TEXT0_0_1 = "OPEN_METRICS_TEXT0_0_1"
    '''OpenMetricsText0.0.1.'''
    OPEN_METRICS_TEXT1_0_0 = "OPEN_METRICS_TEXT1_0_0"
    '''OpenMetricsText1.0.0.'''
    PROMETHEUS_TEXT0_0_4 = "PROMETHEUS_TEXT0_0_4"
    '''PrometheusText0.0.4.'''
    PROMETHEUS_TEXT1_0_0 = "PROMETHEUS_TEXT1_0_0"
    '''PrometheusText1.0.0.'''


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecNamespaceSelector",
    jsii_struct_bases=[],
    name_mapping={"any": "any", "match_names": "matchNames"},
)
class ServiceMonitorSpecNamespaceSelector:
    def __init__(
        self,
        *,
        any: typing.Optional[builtins.bool] = None,
        match_names: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''namespaceSelector defines in which namespace(s) Prometheus should discover the services.

        By default, the services are discovered in the same namespace as the ``ServiceMonitor`` object but it is possible to select pods across different/all namespaces.

        :param any: any defines the boolean describing whether all namespaces are selected in contrast to a list restricting them.
        :param match_names: matchNames defines the list of namespace names to select from.

        :schema: ServiceMonitorSpecNamespaceSelector
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f3777ad0e448bbe33a35bb765a202fa80d5ee3d0645daad234080935f7a1382a)
            check_type(argname="argument any", value=any, expected_type=type_hints["any"])
            check_type(argname="argument match_names", value=match_names, expected_type=type_hints["match_names"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if any is not None:
            self._values["any"] = any
        if match_names is not None:
            self._values["match_names"] = match_names

    @builtins.property
    def any(self) -> typing.Optional[builtins.bool]:
        '''any defines the boolean describing whether all namespaces are selected in contrast to a list restricting them.

        :schema: ServiceMonitorSpecNamespaceSelector#any
        '''
        result = self._values.get("any")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def match_names(self) -> typing.Optional[typing.List[builtins.str]]:
        '''matchNames defines the list of namespace names to select from.

        :schema: ServiceMonitorSpecNamespaceSelector#matchNames
        '''
        result = self._values.get("match_names")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecNamespaceSelector(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ServiceMonitorSpecNativeHistogramMinBucketFactor(
    metaclass=jsii.JSIIMeta,
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecNativeHistogramMinBucketFactor",
):
    '''nativeHistogramMinBucketFactor defines if the growth factor of one bucket to the next is smaller than this, buckets will be merged to increase the factor sufficiently.

    It requires Prometheus >= v2.50.0.

    :schema: ServiceMonitorSpecNativeHistogramMinBucketFactor
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ServiceMonitorSpecNativeHistogramMinBucketFactor":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e8a6779721c4ee6d73fe76af6ac8919cc90a46e9e0868081107a1c48538b6afe)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ServiceMonitorSpecNativeHistogramMinBucketFactor", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ServiceMonitorSpecNativeHistogramMinBucketFactor":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__08262292237b726873c9600835533b74d887545a5ad9bbcbc287af95587f509d)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ServiceMonitorSpecNativeHistogramMinBucketFactor", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.enum(jsii_type="comcoreosmonitoring.ServiceMonitorSpecScrapeProtocols")
class ServiceMonitorSpecScrapeProtocols(enum.Enum):
    '''ScrapeProtocol represents a protocol used by Prometheus for scraping metrics.

    Supported values are:

    - ``OpenMetricsText0.0.1``
    - ``OpenMetricsText1.0.0``
    - ``PrometheusProto``
    - ``PrometheusText0.0.4``
    - ``PrometheusText1.0.0``

    :schema: ServiceMonitorSpecScrapeProtocols
    '''

    PROMETHEUS_PROTO = "PROMETHEUS_PROTO"
    '''PrometheusProto.'''
    OPEN_METRICS_TEXT0_0_1 = "OPEN_METRICS_TEXT0_0_1"
    '''OpenMetricsText0.0.1.'''
    OPEN_METRICS_TEXT1_0_0 = "OPEN_METRICS_TEXT1_0_0"
    '''OpenMetricsText1.0.0.'''
    PROMETHEUS_TEXT0_0_4 = "PROMETHEUS_TEXT0_0_4"
    '''PrometheusText0.0.4.'''
    PROMETHEUS_TEXT1_0_0 = "PROMETHEUS_TEXT1_0_0"
    '''PrometheusText1.0.0.'''


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecSelector",
    jsii_struct_bases=[],
    name_mapping={
        "match_expressions": "matchExpressions",
        "match_labels": "matchLabels",
    },
)
class ServiceMonitorSpecSelector:
    def __init__(
        self,
        *,
        match_expressions: typing.Optional[typing.Sequence[typing.Union["ServiceMonitorSpecSelectorMatchExpressions", typing.Dict[builtins.str, typing.Any]]]] = None,
        match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''selector defines the label selector to select the Kubernetes ``Endpoints`` objects to scrape metrics from.

        :param match_expressions: matchExpressions is a list of label selector requirements. The requirements are ANDed.
        :param match_labels: matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is "key", the operator is "In", and the values array contains only "value". The requirements are ANDed.

        :schema: ServiceMonitorSpecSelector
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__75475617ce7ac77ec0e4c501cb7ce5e19effcb4debd314d1f947679b9fcba6e1)
            check_type(argname="argument match_expressions", value=match_expressions, expected_type=type_hints["match_expressions"])
            check_type(argname="argument match_labels", value=match_labels, expected_type=type_hints["match_labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if match_expressions is not None:
            self._values["match_expressions"] = match_expressions
        if match_labels is not None:
            self._values["match_labels"] = match_labels

    @builtins.property
    def match_expressions(
        self,
    ) -> typing.Optional[typing.List["ServiceMonitorSpecSelectorMatchExpressions"]]:
        '''matchExpressions is a list of label selector requirements.

        The requirements are ANDed.

        :schema: ServiceMonitorSpecSelector#matchExpressions
        '''
        result = self._values.get("match_expressions")
        return typing.cast(typing.Optional[typing.List["ServiceMonitorSpecSelectorMatchExpressions"]], result)

    @builtins.property
    def match_labels(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''matchLabels is a map of {key,value} pairs.

        A single {key,value} in the matchLabels
        map is equivalent to an element of matchExpressions, whose key field is "key", the
        operator is "In", and the values array contains only "value". The requirements are ANDed.

        :schema: ServiceMonitorSpecSelector#matchLabels
        '''
        result = self._values.get("match_labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecSelector(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="comcoreosmonitoring.ServiceMonitorSpecSelectorMatchExpressions",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "operator": "operator", "values": "values"},
)
class ServiceMonitorSpecSelectorMatchExpressions:
    def __init__(
        self,
        *,
        key: builtins.str,
        operator: builtins.str,
        values: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.

        :param key: key is the label key that the selector applies to.
        :param operator: operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist.
        :param values: values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. This array is replaced during a strategic merge patch.

        :schema: ServiceMonitorSpecSelectorMatchExpressions
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8b17baff1becd42b6823f8a48b1b57fa905d0467e143302eafd1d9d0c098db45)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument operator", value=operator, expected_type=type_hints["operator"])
            check_type(argname="argument values", value=values, expected_type=type_hints["values"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "operator": operator,
        }
        if values is not None:
            self._values["values"] = values

    @builtins.property
    def key(self) -> builtins.str:
        '''key is the label key that the selector applies to.

        :schema: ServiceMonitorSpecSelectorMatchExpressions#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def operator(self) -> builtins.str:
        '''operator represents a key's relationship to a set of values.

        Valid operators are In, NotIn, Exists and DoesNotExist.

        :schema: ServiceMonitorSpecSelectorMatchExpressions#operator
        '''
        result = self._values.get("operator")
        assert result is not None, "Required property 'operator' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def values(self) -> typing.Optional[typing.List[builtins.str]]:
        '''values is an array of string values.

        If the operator is In or NotIn,
        the values array must be non-empty. If the operator is Exists or DoesNotExist,
        the values array must be empty. This array is replaced during a strategic
        merge patch.

        :schema: ServiceMonitorSpecSelectorMatchExpressions#values
        '''
        result = self._values.get("values")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ServiceMonitorSpecSelectorMatchExpressions(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="comcoreosmonitoring.ServiceMonitorSpecSelectorMechanism")
class ServiceMonitorSpecSelectorMechanism(enum.Enum):
    '''selectorMechanism defines the mechanism used to select the endpoints to scrape.

    By default, the selection process relies on relabel configurations to filter the discovered targets.
    Alternatively, you can opt in for role selectors, which may offer better efficiency in large clusters.
    Which strategy is best for your use case needs to be carefully evaluated.

    It requires Prometheus >= v2.17.0.

    :schema: ServiceMonitorSpecSelectorMechanism
    '''

    RELABEL_CONFIG = "RELABEL_CONFIG"
    '''RelabelConfig.'''
    ROLE_SELECTOR = "ROLE_SELECTOR"
    '''RoleSelector.'''


@jsii.enum(jsii_type="comcoreosmonitoring.ServiceMonitorSpecServiceDiscoveryRole")
class ServiceMonitorSpecServiceDiscoveryRole(enum.Enum):
    '''serviceDiscoveryRole defines the service discovery role used to discover targets.

    If set, the value should be either "Endpoints" or "EndpointSlice".
    Otherwise it defaults to the value defined in the
    Prometheus/PrometheusAgent resource.

    :schema: ServiceMonitorSpecServiceDiscoveryRole
    '''

    ENDPOINTS = "ENDPOINTS"
    '''Endpoints.'''
    ENDPOINT_SLICE = "ENDPOINT_SLICE"
    '''EndpointSlice.'''


__all__ = [
    "PrometheusRule",
    "PrometheusRuleProps",
    "PrometheusRuleSpec",
    "PrometheusRuleSpecGroups",
    "PrometheusRuleSpecGroupsRules",
    "PrometheusRuleSpecGroupsRulesExpr",
    "ServiceMonitor",
    "ServiceMonitorProps",
    "ServiceMonitorSpec",
    "ServiceMonitorSpecAttachMetadata",
    "ServiceMonitorSpecEndpoints",
    "ServiceMonitorSpecEndpointsAuthorization",
    "ServiceMonitorSpecEndpointsAuthorizationCredentials",
    "ServiceMonitorSpecEndpointsBasicAuth",
    "ServiceMonitorSpecEndpointsBasicAuthPassword",
    "ServiceMonitorSpecEndpointsBasicAuthUsername",
    "ServiceMonitorSpecEndpointsBearerTokenSecret",
    "ServiceMonitorSpecEndpointsMetricRelabelings",
    "ServiceMonitorSpecEndpointsMetricRelabelingsAction",
    "ServiceMonitorSpecEndpointsOauth2",
    "ServiceMonitorSpecEndpointsOauth2ClientId",
    "ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap",
    "ServiceMonitorSpecEndpointsOauth2ClientIdSecret",
    "ServiceMonitorSpecEndpointsOauth2ClientSecret",
    "ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader",
    "ServiceMonitorSpecEndpointsOauth2TlsConfig",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigCa",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigCert",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigMaxVersion",
    "ServiceMonitorSpecEndpointsOauth2TlsConfigMinVersion",
    "ServiceMonitorSpecEndpointsProxyConnectHeader",
    "ServiceMonitorSpecEndpointsRelabelings",
    "ServiceMonitorSpecEndpointsRelabelingsAction",
    "ServiceMonitorSpecEndpointsScheme",
    "ServiceMonitorSpecEndpointsTargetPort",
    "ServiceMonitorSpecEndpointsTlsConfig",
    "ServiceMonitorSpecEndpointsTlsConfigCa",
    "ServiceMonitorSpecEndpointsTlsConfigCaConfigMap",
    "ServiceMonitorSpecEndpointsTlsConfigCaSecret",
    "ServiceMonitorSpecEndpointsTlsConfigCert",
    "ServiceMonitorSpecEndpointsTlsConfigCertConfigMap",
    "ServiceMonitorSpecEndpointsTlsConfigCertSecret",
    "ServiceMonitorSpecEndpointsTlsConfigKeySecret",
    "ServiceMonitorSpecEndpointsTlsConfigMaxVersion",
    "ServiceMonitorSpecEndpointsTlsConfigMinVersion",
    "ServiceMonitorSpecFallbackScrapeProtocol",
    "ServiceMonitorSpecNamespaceSelector",
    "ServiceMonitorSpecNativeHistogramMinBucketFactor",
    "ServiceMonitorSpecScrapeProtocols",
    "ServiceMonitorSpecSelector",
    "ServiceMonitorSpecSelectorMatchExpressions",
    "ServiceMonitorSpecSelectorMechanism",
    "ServiceMonitorSpecServiceDiscoveryRole",
]

publication.publish()

def _typecheckingstub__ec6724b05d6be8a069ac535d8d8d4461a23782e0a344fbd36d14e78cee59a003(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    spec: typing.Union[PrometheusRuleSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e21b7008853c9699b14d4efcceafa6ff9c975095432e2544845140d3312103bd(
    *,
    spec: typing.Union[PrometheusRuleSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b7d731a17a6145319669c5ad04bbd6037ce4798b1fc1890c11154acc9d5785cc(
    *,
    groups: typing.Optional[typing.Sequence[typing.Union[PrometheusRuleSpecGroups, typing.Dict[builtins.str, typing.Any]]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__98e68b7aa3a9e2ab89ed463a5d6f8881ee6f7e42ab4533bfc91fcfee1f79e104(
    *,
    name: builtins.str,
    interval: typing.Optional[builtins.str] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    limit: typing.Optional[jsii.Number] = None,
    partial_response_strategy: typing.Optional[builtins.str] = None,
    query_offset: typing.Optional[builtins.str] = None,
    rules: typing.Optional[typing.Sequence[typing.Union[PrometheusRuleSpecGroupsRules, typing.Dict[builtins.str, typing.Any]]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0c1781d51e64e7d339630495159adc2c953dc730d79c53f3189530376fc669b9(
    *,
    expr: PrometheusRuleSpecGroupsRulesExpr,
    alert: typing.Optional[builtins.str] = None,
    annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    for_: typing.Optional[builtins.str] = None,
    keep_firing_for: typing.Optional[builtins.str] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    record: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9d15b24abce544d261347136c421e3c3bfbe004b752ee51d2e6592a3954913ed(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2a72830e7b4ad0667279eb3ab8cb70176dad9058a7eb51c8c68421e360cc0cad(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ae743b5825b3e6075ede1500d52f893c3c6a63be14f647f9a44d0e722d356470(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    spec: typing.Union[ServiceMonitorSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__56bca6778cf6036cd0140b25f1a1429742323914ee819ae9276e47c0e290aaf5(
    *,
    spec: typing.Union[ServiceMonitorSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__77dad9e9e97980d2d9001de098d81faeb424d5144d09285dc28512f29a3815ba(
    *,
    endpoints: typing.Sequence[typing.Union[ServiceMonitorSpecEndpoints, typing.Dict[builtins.str, typing.Any]]],
    selector: typing.Union[ServiceMonitorSpecSelector, typing.Dict[builtins.str, typing.Any]],
    attach_metadata: typing.Optional[typing.Union[ServiceMonitorSpecAttachMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    body_size_limit: typing.Optional[builtins.str] = None,
    convert_classic_histograms_to_nhcb: typing.Optional[builtins.bool] = None,
    fallback_scrape_protocol: typing.Optional[ServiceMonitorSpecFallbackScrapeProtocol] = None,
    job_label: typing.Optional[builtins.str] = None,
    keep_dropped_targets: typing.Optional[jsii.Number] = None,
    label_limit: typing.Optional[jsii.Number] = None,
    label_name_length_limit: typing.Optional[jsii.Number] = None,
    label_value_length_limit: typing.Optional[jsii.Number] = None,
    namespace_selector: typing.Optional[typing.Union[ServiceMonitorSpecNamespaceSelector, typing.Dict[builtins.str, typing.Any]]] = None,
    native_histogram_bucket_limit: typing.Optional[jsii.Number] = None,
    native_histogram_min_bucket_factor: typing.Optional[ServiceMonitorSpecNativeHistogramMinBucketFactor] = None,
    pod_target_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
    sample_limit: typing.Optional[jsii.Number] = None,
    scrape_class: typing.Optional[builtins.str] = None,
    scrape_classic_histograms: typing.Optional[builtins.bool] = None,
    scrape_protocols: typing.Optional[typing.Sequence[ServiceMonitorSpecScrapeProtocols]] = None,
    selector_mechanism: typing.Optional[ServiceMonitorSpecSelectorMechanism] = None,
    service_discovery_role: typing.Optional[ServiceMonitorSpecServiceDiscoveryRole] = None,
    target_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
    target_limit: typing.Optional[jsii.Number] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2bbe935572488af708dc3190e619dcc20410fc1feb14d189191dcc70c240bc2a(
    *,
    node: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0387a341502661c257fa633a8de56a63d951087fafafcbad7e1c75709428ef9f(
    *,
    authorization: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsAuthorization, typing.Dict[builtins.str, typing.Any]]] = None,
    basic_auth: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsBasicAuth, typing.Dict[builtins.str, typing.Any]]] = None,
    bearer_token_file: typing.Optional[builtins.str] = None,
    bearer_token_secret: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsBearerTokenSecret, typing.Dict[builtins.str, typing.Any]]] = None,
    enable_http2: typing.Optional[builtins.bool] = None,
    filter_running: typing.Optional[builtins.bool] = None,
    follow_redirects: typing.Optional[builtins.bool] = None,
    honor_labels: typing.Optional[builtins.bool] = None,
    honor_timestamps: typing.Optional[builtins.bool] = None,
    interval: typing.Optional[builtins.str] = None,
    metric_relabelings: typing.Optional[typing.Sequence[typing.Union[ServiceMonitorSpecEndpointsMetricRelabelings, typing.Dict[builtins.str, typing.Any]]]] = None,
    no_proxy: typing.Optional[builtins.str] = None,
    oauth2: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2, typing.Dict[builtins.str, typing.Any]]] = None,
    params: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[builtins.str]]] = None,
    path: typing.Optional[builtins.str] = None,
    port: typing.Optional[builtins.str] = None,
    proxy_connect_header: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[typing.Union[ServiceMonitorSpecEndpointsProxyConnectHeader, typing.Dict[builtins.str, typing.Any]]]]] = None,
    proxy_from_environment: typing.Optional[builtins.bool] = None,
    proxy_url: typing.Optional[builtins.str] = None,
    relabelings: typing.Optional[typing.Sequence[typing.Union[ServiceMonitorSpecEndpointsRelabelings, typing.Dict[builtins.str, typing.Any]]]] = None,
    scheme: typing.Optional[ServiceMonitorSpecEndpointsScheme] = None,
    scrape_timeout: typing.Optional[builtins.str] = None,
    target_port: typing.Optional[ServiceMonitorSpecEndpointsTargetPort] = None,
    tls_config: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsTlsConfig, typing.Dict[builtins.str, typing.Any]]] = None,
    track_timestamps_staleness: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b05be2dbf3d1f785c44186c59ea265d852bfc4c161dd2a667dfb7fb72d3fafab(
    *,
    credentials: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsAuthorizationCredentials, typing.Dict[builtins.str, typing.Any]]] = None,
    type: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1c83826f5d1af77f6b472277f612d8fe893abd225721d0ad52a0b6e894c6ca91(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3bb86167c1eb1b7c3cfb101e3ccc00e531d6a4cf5db0187880449cdd1206f66d(
    *,
    password: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsBasicAuthPassword, typing.Dict[builtins.str, typing.Any]]] = None,
    username: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsBasicAuthUsername, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7e0aade533948af8db0e7c96e2e543426177c8f6b9848b8d7d378a3a936439ce(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__650161eb2ae5d4744ac93cdb731365c5ebf1f8ffe3eb9fa80895090d59430fc4(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f101e1b8c5f41fb997e62c8c7f7fc1316f2176377c3a84a57a4345a28bafc76d(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ecdf834c71cee7105eb773035064fc34b431e349772b048e9be974173861c391(
    *,
    action: typing.Optional[ServiceMonitorSpecEndpointsMetricRelabelingsAction] = None,
    modulus: typing.Optional[jsii.Number] = None,
    regex: typing.Optional[builtins.str] = None,
    replacement: typing.Optional[builtins.str] = None,
    separator: typing.Optional[builtins.str] = None,
    source_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
    target_label: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1fbf1a17774c9325051b1afae8b5079d104a808c07e2045229b6a3d401d1fcb4(
    *,
    client_id: typing.Union[ServiceMonitorSpecEndpointsOauth2ClientId, typing.Dict[builtins.str, typing.Any]],
    client_secret: typing.Union[ServiceMonitorSpecEndpointsOauth2ClientSecret, typing.Dict[builtins.str, typing.Any]],
    token_url: builtins.str,
    endpoint_params: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    no_proxy: typing.Optional[builtins.str] = None,
    proxy_connect_header: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[typing.Union[ServiceMonitorSpecEndpointsOauth2ProxyConnectHeader, typing.Dict[builtins.str, typing.Any]]]]] = None,
    proxy_from_environment: typing.Optional[builtins.bool] = None,
    proxy_url: typing.Optional[builtins.str] = None,
    scopes: typing.Optional[typing.Sequence[builtins.str]] = None,
    tls_config: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2TlsConfig, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6b23a4d24eb9eb69c5d201cdffad8413acfa1f419c8a41a1d59e60b419084b5e(
    *,
    config_map: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2ClientIdConfigMap, typing.Dict[builtins.str, typing.Any]]] = None,
    secret: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2ClientIdSecret, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ec94d0b7ad6b1d19e33b596d14da05ba8a4e7ca4ca951dc592d31e9d25189676(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__87adb09a12da5a2e30ed878fc51cb100bb3d1390ff6aaef2644476c51f4cff23(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d2a5f493304f38e2b06749204c2233f60863fb580f98104b324a73426c3f8810(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__baf4e3c0471ec4b2fa1df354aa463cd2af1209915d5b9f06f34ca01eaa858a81(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b35255ec2174c1336ffa23c2397f9d9d5733e2b716f7665ed12ca6cf9db5028a(
    *,
    ca: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2TlsConfigCa, typing.Dict[builtins.str, typing.Any]]] = None,
    cert: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2TlsConfigCert, typing.Dict[builtins.str, typing.Any]]] = None,
    insecure_skip_verify: typing.Optional[builtins.bool] = None,
    key_secret: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2TlsConfigKeySecret, typing.Dict[builtins.str, typing.Any]]] = None,
    max_version: typing.Optional[ServiceMonitorSpecEndpointsOauth2TlsConfigMaxVersion] = None,
    min_version: typing.Optional[ServiceMonitorSpecEndpointsOauth2TlsConfigMinVersion] = None,
    server_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__af2c136274b4b750305604f68d84680e2b4345fa24e6183a508408d0e145c5b9(
    *,
    config_map: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2TlsConfigCaConfigMap, typing.Dict[builtins.str, typing.Any]]] = None,
    secret: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2TlsConfigCaSecret, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__4f733ecb9c6c03b0398a6edd3ff1d2c19f707c22fd2788dd5278e1855aa2bdf3(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__85a4161d0987c009764d17cdf094ee8aea681edf01066684b6ca4493c317fab8(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3c4b20159d0c3a83579d22cb1a045729b923731d6b68744bba82d6398f242b4a(
    *,
    config_map: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2TlsConfigCertConfigMap, typing.Dict[builtins.str, typing.Any]]] = None,
    secret: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsOauth2TlsConfigCertSecret, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c6be5496dd49fe73795f886d2da410ab862f79a58637f6604655dfdcd0a87703(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9504701e5b5dfe1c5cb53e5d92098578be7ce6189cb6b716e3bea0dd87b261b8(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__232c1b4dee109c8cbd78169e29345510e84988dd19ac3da3b776d00e4f8b9052(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__af7ff9bf850f6229a5a446f1891c3694482531b8efb09e8e46753a797a87f74f(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2635c776631324d4d88ad60676fe0b6bf4e435f64f67f6bd98c0af6e1a54b3d7(
    *,
    action: typing.Optional[ServiceMonitorSpecEndpointsRelabelingsAction] = None,
    modulus: typing.Optional[jsii.Number] = None,
    regex: typing.Optional[builtins.str] = None,
    replacement: typing.Optional[builtins.str] = None,
    separator: typing.Optional[builtins.str] = None,
    source_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
    target_label: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__921466a7217a2e8c0331771b9a8e0d0eae5bcaaf21ce66143ab70c1574377ef4(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__637b86ffabdc810a999e12c8ef0d4865b9dcb222e2b33b3127f2d5d298cb04fa(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b3f61ccd8cbac6223a039c16101703c8606ce1f842334d316300d980bb74ee2d(
    *,
    ca: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsTlsConfigCa, typing.Dict[builtins.str, typing.Any]]] = None,
    ca_file: typing.Optional[builtins.str] = None,
    cert: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsTlsConfigCert, typing.Dict[builtins.str, typing.Any]]] = None,
    cert_file: typing.Optional[builtins.str] = None,
    insecure_skip_verify: typing.Optional[builtins.bool] = None,
    key_file: typing.Optional[builtins.str] = None,
    key_secret: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsTlsConfigKeySecret, typing.Dict[builtins.str, typing.Any]]] = None,
    max_version: typing.Optional[ServiceMonitorSpecEndpointsTlsConfigMaxVersion] = None,
    min_version: typing.Optional[ServiceMonitorSpecEndpointsTlsConfigMinVersion] = None,
    server_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__bd0e3bda2c9cf9f5c7ebe493483bb7890dd7b12e129f323712b0d1b5bcf35c6b(
    *,
    config_map: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsTlsConfigCaConfigMap, typing.Dict[builtins.str, typing.Any]]] = None,
    secret: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsTlsConfigCaSecret, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8f281050edbf368ccdc8635525823ea5e2a98d556fc88178a1b5496e01c1d173(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f85e562e9ea5ccc14e6f2ebb0dfa3bec9acedd855dd37e3454e187f0f3eda4ee(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__cc6582fab979e22866d67d8ec9ed1ca599a28e957aa40db8821f3884224dd8c9(
    *,
    config_map: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsTlsConfigCertConfigMap, typing.Dict[builtins.str, typing.Any]]] = None,
    secret: typing.Optional[typing.Union[ServiceMonitorSpecEndpointsTlsConfigCertSecret, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b7438f334d5518e8db9c8f8f9d7b7eae5d251d0d23c70c6c81de817a9aaca462(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e3376a030f3eeef358b5a57d83bb8f17fec010fde7f20bcf209b46ab4c63161c(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a121bd59efac998876b4760c4d96a77dbcfcab89ff8734d421528126d32553a9(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f3777ad0e448bbe33a35bb765a202fa80d5ee3d0645daad234080935f7a1382a(
    *,
    any: typing.Optional[builtins.bool] = None,
    match_names: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e8a6779721c4ee6d73fe76af6ac8919cc90a46e9e0868081107a1c48538b6afe(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__08262292237b726873c9600835533b74d887545a5ad9bbcbc287af95587f509d(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__75475617ce7ac77ec0e4c501cb7ce5e19effcb4debd314d1f947679b9fcba6e1(
    *,
    match_expressions: typing.Optional[typing.Sequence[typing.Union[ServiceMonitorSpecSelectorMatchExpressions, typing.Dict[builtins.str, typing.Any]]]] = None,
    match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8b17baff1becd42b6823f8a48b1b57fa905d0467e143302eafd1d9d0c098db45(
    *,
    key: builtins.str,
    operator: builtins.str,
    values: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass
