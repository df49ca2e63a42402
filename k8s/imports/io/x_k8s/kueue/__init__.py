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


class ClusterQueue(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ClusterQueue",
):
    '''ClusterQueue is the Schema for the clusterQueue API.

    :schema: ClusterQueue
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ClusterQueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "ClusterQueue" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the ClusterQueue.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a4d4299d0c519d9e192957aea2128640ba63416e9595b63aefc69a5781b1410e)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = ClusterQueueProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ClusterQueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "ClusterQueue".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the ClusterQueue.
        '''
        props = ClusterQueueProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "ClusterQueue".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class ClusterQueueProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ClusterQueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ClusterQueue is the Schema for the clusterQueue API.

        :param metadata: 
        :param spec: spec is the specification of the ClusterQueue.

        :schema: ClusterQueue
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = ClusterQueueSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0d253e8ef936fa7ad597345c72c17092bf9cf15e791d65f4f3521b2494741de9)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: ClusterQueue#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["ClusterQueueSpec"]:
        '''spec is the specification of the ClusterQueue.

        :schema: ClusterQueue#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["ClusterQueueSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpec",
    jsii_struct_bases=[],
    name_mapping={
        "admission_checks": "admissionChecks",
        "admission_checks_strategy": "admissionChecksStrategy",
        "admission_scope": "admissionScope",
        "cohort": "cohort",
        "fair_sharing": "fairSharing",
        "flavor_fungibility": "flavorFungibility",
        "namespace_selector": "namespaceSelector",
        "preemption": "preemption",
        "queueing_strategy": "queueingStrategy",
        "resource_groups": "resourceGroups",
        "stop_policy": "stopPolicy",
    },
)
class ClusterQueueSpec:
    def __init__(
        self,
        *,
        admission_checks: typing.Optional[typing.Sequence[builtins.str]] = None,
        admission_checks_strategy: typing.Optional[typing.Union["ClusterQueueSpecAdmissionChecksStrategy", typing.Dict[builtins.str, typing.Any]]] = None,
        admission_scope: typing.Optional[typing.Union["ClusterQueueSpecAdmissionScope", typing.Dict[builtins.str, typing.Any]]] = None,
        cohort: typing.Optional[builtins.str] = None,
        fair_sharing: typing.Optional[typing.Union["ClusterQueueSpecFairSharing", typing.Dict[builtins.str, typing.Any]]] = None,
        flavor_fungibility: typing.Optional[typing.Union["ClusterQueueSpecFlavorFungibility", typing.Dict[builtins.str, typing.Any]]] = None,
        namespace_selector: typing.Optional[typing.Union["ClusterQueueSpecNamespaceSelector", typing.Dict[builtins.str, typing.Any]]] = None,
        preemption: typing.Optional[typing.Union["ClusterQueueSpecPreemption", typing.Dict[builtins.str, typing.Any]]] = None,
        queueing_strategy: typing.Optional["ClusterQueueSpecQueueingStrategy"] = None,
        resource_groups: typing.Optional[typing.Sequence[typing.Union["ClusterQueueSpecResourceGroups", typing.Dict[builtins.str, typing.Any]]]] = None,
        stop_policy: typing.Optional["ClusterQueueSpecStopPolicy"] = None,
    ) -> None:
        '''spec is the specification of the ClusterQueue.

        :param admission_checks: admissionChecks lists the AdmissionChecks required by this ClusterQueue. Cannot be used along with AdmissionCheckStrategy.
        :param admission_checks_strategy: admissionChecksStrategy defines a list of strategies to determine which ResourceFlavors require AdmissionChecks. This property cannot be used in conjunction with the 'admissionChecks' property.
        :param admission_scope: admissionScope indicates whether ClusterQueue uses the Admission Fair Sharing.
        :param cohort: cohort that this ClusterQueue belongs to. CQs that belong to the same cohort can borrow unused resources from each other. A CQ can be a member of a single borrowing cohort. A workload submitted to a queue referencing this CQ can borrow quota from any CQ in the cohort. Only quota for the [resource, flavor] pairs listed in the CQ can be borrowed. If empty, this ClusterQueue cannot borrow from any other ClusterQueue and vice versa. A cohort is a name that links CQs together, but it doesn't reference any object.
        :param fair_sharing: fairSharing defines the properties of the ClusterQueue when participating in FairSharing. The values are only relevant if FairSharing is enabled in the Kueue configuration.
        :param flavor_fungibility: flavorFungibility defines whether a workload should try the next flavor before borrowing or preempting in the flavor being evaluated.
        :param namespace_selector: namespaceSelector defines which namespaces are allowed to submit workloads to this clusterQueue. Beyond this basic support for policy, a policy agent like Gatekeeper should be used to enforce more advanced policies. Defaults to null which is a nothing selector (no namespaces eligible). If set to an empty selector ``{}``, then all namespaces are eligible. Default: null which is a nothing selector (no namespaces eligible).
        :param preemption: preemption defines the preemption policies.
        :param queueing_strategy: queueingStrategy indicates the queueing strategy of the workloads across the queues in this ClusterQueue. Current Supported Strategies:. - StrictFIFO: workloads are ordered strictly by creation time. Older workloads that can't be admitted will block admitting newer workloads even if they fit available quota. - BestEffortFIFO: workloads are ordered by creation time, however older workloads that can't be admitted will not block admitting newer workloads that fit existing quota.
        :param resource_groups: resourceGroups describes groups of resources. Each resource group defines the list of resources and a list of flavors that provide quotas for these resources. Each resource and each flavor can only form part of one resource group. resourceGroups can be up to 16, with a max of 256 total flavors across all groups.
        :param stop_policy: stopPolicy - if set to a value different from None, the ClusterQueue is considered Inactive, no new reservation being made. Depending on its value, its associated workloads will: - None - Workloads are admitted - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation. - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

        :schema: ClusterQueueSpec
        '''
        if isinstance(admission_checks_strategy, dict):
            admission_checks_strategy = ClusterQueueSpecAdmissionChecksStrategy(**admission_checks_strategy)
        if isinstance(admission_scope, dict):
            admission_scope = ClusterQueueSpecAdmissionScope(**admission_scope)
        if isinstance(fair_sharing, dict):
            fair_sharing = ClusterQueueSpecFairSharing(**fair_sharing)
        if isinstance(flavor_fungibility, dict):
            flavor_fungibility = ClusterQueueSpecFlavorFungibility(**flavor_fungibility)
        if isinstance(namespace_selector, dict):
            namespace_selector = ClusterQueueSpecNamespaceSelector(**namespace_selector)
        if isinstance(preemption, dict):
            preemption = ClusterQueueSpecPreemption(**preemption)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b99250b7d4571f1892dd2329afe9053e3af4493f6a2de73c8cbf9abdfd12b3f6)
            check_type(argname="argument admission_checks", value=admission_checks, expected_type=type_hints["admission_checks"])
            check_type(argname="argument admission_checks_strategy", value=admission_checks_strategy, expected_type=type_hints["admission_checks_strategy"])
            check_type(argname="argument admission_scope", value=admission_scope, expected_type=type_hints["admission_scope"])
            check_type(argname="argument cohort", value=cohort, expected_type=type_hints["cohort"])
            check_type(argname="argument fair_sharing", value=fair_sharing, expected_type=type_hints["fair_sharing"])
            check_type(argname="argument flavor_fungibility", value=flavor_fungibility, expected_type=type_hints["flavor_fungibility"])
            check_type(argname="argument namespace_selector", value=namespace_selector, expected_type=type_hints["namespace_selector"])
            check_type(argname="argument preemption", value=preemption, expected_type=type_hints["preemption"])
            check_type(argname="argument queueing_strategy", value=queueing_strategy, expected_type=type_hints["queueing_strategy"])
            check_type(argname="argument resource_groups", value=resource_groups, expected_type=type_hints["resource_groups"])
            check_type(argname="argument stop_policy", value=stop_policy, expected_type=type_hints["stop_policy"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if admission_checks is not None:
            self._values["admission_checks"] = admission_checks
        if admission_checks_strategy is not None:
            self._values["admission_checks_strategy"] = admission_checks_strategy
        if admission_scope is not None:
            self._values["admission_scope"] = admission_scope
        if cohort is not None:
            self._values["cohort"] = cohort
        if fair_sharing is not None:
            self._values["fair_sharing"] = fair_sharing
        if flavor_fungibility is not None:
            self._values["flavor_fungibility"] = flavor_fungibility
        if namespace_selector is not None:
            self._values["namespace_selector"] = namespace_selector
        if preemption is not None:
            self._values["preemption"] = preemption
        if queueing_strategy is not None:
            self._values["queueing_strategy"] = queueing_strategy
        if resource_groups is not None:
            self._values["resource_groups"] = resource_groups
        if stop_policy is not None:
            self._values["stop_policy"] = stop_policy

    @builtins.property
    def admission_checks(self) -> typing.Optional[typing.List[builtins.str]]:
        '''admissionChecks lists the AdmissionChecks required by this ClusterQueue.

        Cannot be used along with AdmissionCheckStrategy.

        :schema: ClusterQueueSpec#admissionChecks
        '''
        result = self._values.get("admission_checks")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def admission_checks_strategy(
        self,
    ) -> typing.Optional["ClusterQueueSpecAdmissionChecksStrategy"]:
        '''admissionChecksStrategy defines a list of strategies to determine which ResourceFlavors require AdmissionChecks.

        This property cannot be used in conjunction with the 'admissionChecks' property.

        :schema: ClusterQueueSpec#admissionChecksStrategy
        '''
        result = self._values.get("admission_checks_strategy")
        return typing.cast(typing.Optional["ClusterQueueSpecAdmissionChecksStrategy"], result)

    @builtins.property
    def admission_scope(self) -> typing.Optional["ClusterQueueSpecAdmissionScope"]:
        '''admissionScope indicates whether ClusterQueue uses the Admission Fair Sharing.

        :schema: ClusterQueueSpec#admissionScope
        '''
        result = self._values.get("admission_scope")
        return typing.cast(typing.Optional["ClusterQueueSpecAdmissionScope"], result)

    @builtins.property
    def cohort(self) -> typing.Optional[builtins.str]:
        '''cohort that this ClusterQueue belongs to. CQs that belong to the same cohort can borrow unused resources from each other.

        A CQ can be a member of a single borrowing cohort. A workload submitted
        to a queue referencing this CQ can borrow quota from any CQ in the cohort.
        Only quota for the [resource, flavor] pairs listed in the CQ can be
        borrowed.
        If empty, this ClusterQueue cannot borrow from any other ClusterQueue and
        vice versa.

        A cohort is a name that links CQs together, but it doesn't reference any
        object.

        :schema: ClusterQueueSpec#cohort
        '''
        result = self._values.get("cohort")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def fair_sharing(self) -> typing.Optional["ClusterQueueSpecFairSharing"]:
        '''fairSharing defines the properties of the ClusterQueue when participating in FairSharing.

        The values are only relevant
        if FairSharing is enabled in the Kueue configuration.

        :schema: ClusterQueueSpec#fairSharing
        '''
        result = self._values.get("fair_sharing")
        return typing.cast(typing.Optional["ClusterQueueSpecFairSharing"], result)

    @builtins.property
    def flavor_fungibility(
        self,
    ) -> typing.Optional["ClusterQueueSpecFlavorFungibility"]:
        '''flavorFungibility defines whether a workload should try the next flavor before borrowing or preempting in the flavor being evaluated.

        :schema: ClusterQueueSpec#flavorFungibility
        '''
        result = self._values.get("flavor_fungibility")
        return typing.cast(typing.Optional["ClusterQueueSpecFlavorFungibility"], result)

    @builtins.property
    def namespace_selector(
        self,
    ) -> typing.Optional["ClusterQueueSpecNamespaceSelector"]:
        '''namespaceSelector defines which namespaces are allowed to submit workloads to this clusterQueue.

        Beyond this basic support for policy, a policy agent like
        Gatekeeper should be used to enforce more advanced policies.
        Defaults to null which is a nothing selector (no namespaces eligible).
        If set to an empty selector ``{}``, then all namespaces are eligible.

        :default: null which is a nothing selector (no namespaces eligible).

        :schema: ClusterQueueSpec#namespaceSelector
        '''
        result = self._values.get("namespace_selector")
        return typing.cast(typing.Optional["ClusterQueueSpecNamespaceSelector"], result)

    @builtins.property
    def preemption(self) -> typing.Optional["ClusterQueueSpecPreemption"]:
        '''preemption defines the preemption policies.

        :schema: ClusterQueueSpec#preemption
        '''
        result = self._values.get("preemption")
        return typing.cast(typing.Optional["ClusterQueueSpecPreemption"], result)

    @builtins.property
    def queueing_strategy(self) -> typing.Optional["ClusterQueueSpecQueueingStrategy"]:
        '''queueingStrategy indicates the queueing strategy of the workloads across the queues in this ClusterQueue. Current Supported Strategies:.

        - StrictFIFO: workloads are ordered strictly by creation time.
          Older workloads that can't be admitted will block admitting newer
          workloads even if they fit available quota.
        - BestEffortFIFO: workloads are ordered by creation time,
          however older workloads that can't be admitted will not block
          admitting newer workloads that fit existing quota.

        :schema: ClusterQueueSpec#queueingStrategy
        '''
        result = self._values.get("queueing_strategy")
        return typing.cast(typing.Optional["ClusterQueueSpecQueueingStrategy"], result)

    @builtins.property
    def resource_groups(
        self,
    ) -> typing.Optional[typing.List["ClusterQueueSpecResourceGroups"]]:
        '''resourceGroups describes groups of resources.

        Each resource group defines the list of resources and a list of flavors
        that provide quotas for these resources.
        Each resource and each flavor can only form part of one resource group.
        resourceGroups can be up to 16, with a max of 256 total flavors across all groups.

        :schema: ClusterQueueSpec#resourceGroups
        '''
        result = self._values.get("resource_groups")
        return typing.cast(typing.Optional[typing.List["ClusterQueueSpecResourceGroups"]], result)

    @builtins.property
    def stop_policy(self) -> typing.Optional["ClusterQueueSpecStopPolicy"]:
        '''stopPolicy - if set to a value different from None, the ClusterQueue is considered Inactive, no new reservation being made.

        Depending on its value, its associated workloads will:

        - None - Workloads are admitted
        - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation.
        - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

        :schema: ClusterQueueSpec#stopPolicy
        '''
        result = self._values.get("stop_policy")
        return typing.cast(typing.Optional["ClusterQueueSpecStopPolicy"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecAdmissionChecksStrategy",
    jsii_struct_bases=[],
    name_mapping={"admission_checks": "admissionChecks"},
)
class ClusterQueueSpecAdmissionChecksStrategy:
    def __init__(
        self,
        *,
        admission_checks: typing.Optional[typing.Sequence[typing.Union["ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks", typing.Dict[builtins.str, typing.Any]]]] = None,
    ) -> None:
        '''admissionChecksStrategy defines a list of strategies to determine which ResourceFlavors require AdmissionChecks.

        This property cannot be used in conjunction with the 'admissionChecks' property.

        :param admission_checks: admissionChecks is a list of strategies for AdmissionChecks.

        :schema: ClusterQueueSpecAdmissionChecksStrategy
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__cada476e4694e2e4fc21322455ffcb93fcd53c1551447271d5987104f24b7fe6)
            check_type(argname="argument admission_checks", value=admission_checks, expected_type=type_hints["admission_checks"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if admission_checks is not None:
            self._values["admission_checks"] = admission_checks

    @builtins.property
    def admission_checks(
        self,
    ) -> typing.Optional[typing.List["ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks"]]:
        '''admissionChecks is a list of strategies for AdmissionChecks.

        :schema: ClusterQueueSpecAdmissionChecksStrategy#admissionChecks
        '''
        result = self._values.get("admission_checks")
        return typing.cast(typing.Optional[typing.List["ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks"]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecAdmissionChecksStrategy(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "on_flavors": "onFlavors"},
)
class ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks:
    def __init__(
        self,
        *,
        name: builtins.str,
        on_flavors: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''AdmissionCheckStrategyRule defines rules for a single AdmissionCheck.

        :param name: name is an AdmissionCheck's name.
        :param on_flavors: onFlavors is a list of ResourceFlavors' names that this AdmissionCheck should run for. If empty, the AdmissionCheck will run for all workloads submitted to the ClusterQueue.

        :schema: ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__23ce63cf2e817ebbe2098194c102283b1143f45770181b85d4598f30142606c7)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument on_flavors", value=on_flavors, expected_type=type_hints["on_flavors"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
        }
        if on_flavors is not None:
            self._values["on_flavors"] = on_flavors

    @builtins.property
    def name(self) -> builtins.str:
        '''name is an AdmissionCheck's name.

        :schema: ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def on_flavors(self) -> typing.Optional[typing.List[builtins.str]]:
        '''onFlavors is a list of ResourceFlavors' names that this AdmissionCheck should run for.

        If empty, the AdmissionCheck will run for all workloads submitted to the ClusterQueue.

        :schema: ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks#onFlavors
        '''
        result = self._values.get("on_flavors")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecAdmissionScope",
    jsii_struct_bases=[],
    name_mapping={"admission_mode": "admissionMode"},
)
class ClusterQueueSpecAdmissionScope:
    def __init__(self, *, admission_mode: builtins.str) -> None:
        '''admissionScope indicates whether ClusterQueue uses the Admission Fair Sharing.

        :param admission_mode: admissionMode indicates which mode for AdmissionFairSharing should be used in the AdmissionScope. Possible values are: - UsageBasedAdmissionFairSharing - NoAdmissionFairSharing

        :schema: ClusterQueueSpecAdmissionScope
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b4f1bba1b54c5e125d4d05cf158c91272466cfefdfeb6212f83c87b3d1d1ce84)
            check_type(argname="argument admission_mode", value=admission_mode, expected_type=type_hints["admission_mode"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "admission_mode": admission_mode,
        }

    @builtins.property
    def admission_mode(self) -> builtins.str:
        '''admissionMode indicates which mode for AdmissionFairSharing should be used in the AdmissionScope.

        Possible values are:

        - UsageBasedAdmissionFairSharing
        - NoAdmissionFairSharing

        :schema: ClusterQueueSpecAdmissionScope#admissionMode
        '''
        result = self._values.get("admission_mode")
        assert result is not None, "Required property 'admission_mode' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecAdmissionScope(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecFairSharing",
    jsii_struct_bases=[],
    name_mapping={"weight": "weight"},
)
class ClusterQueueSpecFairSharing:
    def __init__(
        self,
        *,
        weight: typing.Optional["ClusterQueueSpecFairSharingWeight"] = None,
    ) -> None:
        '''fairSharing defines the properties of the ClusterQueue when participating in FairSharing.

        The values are only relevant
        if FairSharing is enabled in the Kueue configuration.

        :param weight: weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort. The share is based on the dominant resource usage above nominal quotas for each resource, divided by the weight. Admission prioritizes scheduling workloads from ClusterQueues and Cohorts with the lowest share and preempting workloads from the ClusterQueues and Cohorts with the highest share. A zero weight implies infinite share value, meaning that this Node will always be at disadvantage against other ClusterQueues and Cohorts. When not 0, Weight must be greater than 10^-9.

        :schema: ClusterQueueSpecFairSharing
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__fd9fb3b32bd22e4fc51d0214f0f154d2fdb351a3a1125bbee6396e44d746a148)
            check_type(argname="argument weight", value=weight, expected_type=type_hints["weight"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if weight is not None:
            self._values["weight"] = weight

    @builtins.property
    def weight(self) -> typing.Optional["ClusterQueueSpecFairSharingWeight"]:
        '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

        The share is based on the dominant resource usage
        above nominal quotas for each resource, divided by the
        weight.  Admission prioritizes scheduling workloads from
        ClusterQueues and Cohorts with the lowest share and
        preempting workloads from the ClusterQueues and Cohorts
        with the highest share.  A zero weight implies infinite
        share value, meaning that this Node will always be at
        disadvantage against other ClusterQueues and Cohorts.
        When not 0, Weight must be greater than 10^-9.

        :schema: ClusterQueueSpecFairSharing#weight
        '''
        result = self._values.get("weight")
        return typing.cast(typing.Optional["ClusterQueueSpecFairSharingWeight"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecFairSharing(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ClusterQueueSpecFairSharingWeight(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ClusterQueueSpecFairSharingWeight",
):
    '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

    The share is based on the dominant resource usage
    above nominal quotas for each resource, divided by the
    weight.  Admission prioritizes scheduling workloads from
    ClusterQueues and Cohorts with the lowest share and
    preempting workloads from the ClusterQueues and Cohorts
    with the highest share.  A zero weight implies infinite
    share value, meaning that this Node will always be at
    disadvantage against other ClusterQueues and Cohorts.
    When not 0, Weight must be greater than 10^-9.

    :schema: ClusterQueueSpecFairSharingWeight
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "ClusterQueueSpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ca2961666971173c41bbe105a732cfb10638ed66c4b0a0c7e782ca691a3f06bb)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecFairSharingWeight", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(cls, value: builtins.str) -> "ClusterQueueSpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d68791cc3be4584d475a0a38997a13627c4b0bb5da57db590624f9ad37af9886)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecFairSharingWeight", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecFlavorFungibility",
    jsii_struct_bases=[],
    name_mapping={
        "preference": "preference",
        "when_can_borrow": "whenCanBorrow",
        "when_can_preempt": "whenCanPreempt",
    },
)
class ClusterQueueSpecFlavorFungibility:
    def __init__(
        self,
        *,
        preference: typing.Optional["ClusterQueueSpecFlavorFungibilityPreference"] = None,
        when_can_borrow: typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanBorrow"] = None,
        when_can_preempt: typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanPreempt"] = None,
    ) -> None:
        '''flavorFungibility defines whether a workload should try the next flavor before borrowing or preempting in the flavor being evaluated.

        :param preference: preference guides the choosing of the flavor for admission in case all candidate flavors require either preemption, borrowing, or both. The possible values are: - ``BorrowingOverPreemption`` (default): prefer to use borrowing rather than preemption when such a choice is possible. More technically it minimizes the borrowing distance in the cohort tree, and solves tie-breaks by preferring better preemption mode (reclaim over preemption within ClusterQueue). - ``PreemptionOverBorrowing``: prefer to use preemption rather than borrowing when such a choice is possible. More technically it optimizes the preemption mode (reclaim over preemption within ClusterQueue), and solves tie-breaks by minimizing the borrowing distance in the cohort tree.
        :param when_can_borrow: whenCanBorrow determines whether a workload should try the next flavor before borrowing in current flavor. The possible values are:. - ``MayStopSearch`` (default): stop the search for candidate flavors if workload fits or requires borrowing to fit. - ``TryNextFlavor``: try next flavor if workload requires borrowing to fit. - ``Borrow`` (deprecated): old name for ``MayStopSearch``; please use new name.
        :param when_can_preempt: whenCanPreempt determines whether a workload should try the next flavor before preempting in current flavor. The possible values are:. - ``MayStopSearch``: stop the search for candidate flavors if workload fits or requires preemption to fit. - ``TryNextFlavor`` (default): try next flavor if workload requires preemption to fit in current flavor. - ``Preempt`` (deprecated): old name for ``MayStopSearch``; please use new name.

        :schema: ClusterQueueSpecFlavorFungibility
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__36cd6e618a44078371f8e91f8447b2b24a2755c0a7b084b255f9b2e67b37dedc)
            check_type(argname="argument preference", value=preference, expected_type=type_hints["preference"])
            check_type(argname="argument when_can_borrow", value=when_can_borrow, expected_type=type_hints["when_can_borrow"])
            check_type(argname="argument when_can_preempt", value=when_can_preempt, expected_type=type_hints["when_can_preempt"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if preference is not None:
            self._values["preference"] = preference
        if when_can_borrow is not None:
            self._values["when_can_borrow"] = when_can_borrow
        if when_can_preempt is not None:
            self._values["when_can_preempt"] = when_can_preempt

    @builtins.property
    def preference(
        self,
    ) -> typing.Optional["ClusterQueueSpecFlavorFungibilityPreference"]:
        '''preference guides the choosing of the flavor for admission in case all candidate flavors require either preemption, borrowing, or both.

        The possible values are:

        - ``BorrowingOverPreemption`` (default): prefer to use borrowing rather than preemption
          when such a choice is possible. More technically it minimizes the borrowing distance
          in the cohort tree, and solves tie-breaks by preferring better preemption mode
          (reclaim over preemption within ClusterQueue).
        - ``PreemptionOverBorrowing``: prefer to use preemption rather than borrowing
          when such a choice is possible.  More technically it optimizes the preemption mode
          (reclaim over preemption within ClusterQueue), and solves tie-breaks by minimizing
          the borrowing distance in the cohort tree.

        :schema: ClusterQueueSpecFlavorFungibility#preference
        '''
        result = self._values.get("preference")
        return typing.cast(typing.Optional["ClusterQueueSpecFlavorFungibilityPreference"], result)

    @builtins.property
    def when_can_borrow(
        self,
    ) -> typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanBorrow"]:
        '''whenCanBorrow determines whether a workload should try the next flavor before borrowing in current flavor. The possible values are:.

        - ``MayStopSearch`` (default): stop the search for candidate flavors if workload
          fits or requires borrowing to fit.
        - ``TryNextFlavor``: try next flavor if workload requires borrowing to fit.
        - ``Borrow`` (deprecated): old name for ``MayStopSearch``; please use new name.

        :schema: ClusterQueueSpecFlavorFungibility#whenCanBorrow
        '''
        result = self._values.get("when_can_borrow")
        return typing.cast(typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanBorrow"], result)

    @builtins.property
    def when_can_preempt(
        self,
    ) -> typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanPreempt"]:
        '''whenCanPreempt determines whether a workload should try the next flavor before preempting in current flavor. The possible values are:.

        - ``MayStopSearch``: stop the search for candidate flavors if workload fits or requires
          preemption to fit.
        - ``TryNextFlavor`` (default): try next flavor if workload requires preemption
          to fit in current flavor.
        - ``Preempt`` (deprecated): old name for ``MayStopSearch``; please use new name.

        :schema: ClusterQueueSpecFlavorFungibility#whenCanPreempt
        '''
        result = self._values.get("when_can_preempt")
        return typing.cast(typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanPreempt"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecFlavorFungibility(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecFlavorFungibilityPreference")
class ClusterQueueSpecFlavorFungibilityPreference(enum.Enum):
    '''preference guides the choosing of the flavor for admission in case all candidate flavors require either preemption, borrowing, or both.

    The possible values are:

    - ``BorrowingOverPreemption`` (default): prefer to use borrowing rather than preemption
      when such a choice is possible. More technically it minimizes the borrowing distance
      in the cohort tree, and solves tie-breaks by preferring better preemption mode
      (reclaim over preemption within ClusterQueue).
    - ``PreemptionOverBorrowing``: prefer to use preemption rather than borrowing
      when such a choice is possible.  More technically it optimizes the preemption mode
      (reclaim over preemption within ClusterQueue), and solves tie-breaks by minimizing
      the borrowing distance in the cohort tree.

    :schema: ClusterQueueSpecFlavorFungibilityPreference
    '''

    BORROWING_OVER_PREEMPTION = "BORROWING_OVER_PREEMPTION"
    '''BorrowingOverPreemption.'''
    PREEMPTION_OVER_BORROWING = "PREEMPTION_OVER_BORROWING"
    '''PreemptionOverBorrowing.'''


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecFlavorFungibilityWhenCanBorrow")
class ClusterQueueSpecFlavorFungibilityWhenCanBorrow(enum.Enum):
    '''whenCanBorrow determines whether a workload should try the next flavor before borrowing in current flavor. The possible values are:.

    - ``MayStopSearch`` (default): stop the search for candidate flavors if workload
      fits or requires borrowing to fit.
    - ``TryNextFlavor``: try next flavor if workload requires borrowing to fit.
    - ``Borrow`` (deprecated): old name for ``MayStopSearch``; please use new name.

    :schema: ClusterQueueSpecFlavorFungibilityWhenCanBorrow
    '''

    MAY_STOP_SEARCH = "MAY_STOP_SEARCH"
    '''MayStopSearch.'''
    TRY_NEXT_FLAVOR = "TRY_NEXT_FLAVOR"
    '''TryNextFlavor.'''
    BORROW = "BORROW"
    '''Borrow.'''


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecFlavorFungibilityWhenCanPreempt")
class ClusterQueueSpecFlavorFungibilityWhenCanPreempt(enum.Enum):
    '''whenCanPreempt determines whether a workload should try the next flavor before preempting in current flavor. The possible values are:.

    - ``MayStopSearch``: stop the search for candidate flavors if workload fits or requires
      preemption to fit.
    - ``TryNextFlavor`` (default): try next flavor if workload requires preemption
      to fit in current flavor.
    - ``Preempt`` (deprecated): old name for ``MayStopSearch``; please use new name.

    :schema: ClusterQueueSpecFlavorFungibilityWhenCanPreempt
    '''

    MAY_STOP_SEARCH = "MAY_STOP_SEARCH"
    '''MayStopSearch.'''
    TRY_NEXT_FLAVOR = "TRY_NEXT_FLAVOR"
    '''TryNextFlavor.'''
    PREEMPT = "PREEMPT"
    '''Preempt.'''


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecNamespaceSelector",
    jsii_struct_bases=[],
    name_mapping={
        "match_expressions": "matchExpressions",
        "match_labels": "matchLabels",
    },
)
class ClusterQueueSpecNamespaceSelector:
    def __init__(
        self,
        *,
        match_expressions: typing.Optional[typing.Sequence[typing.Union["ClusterQueueSpecNamespaceSelectorMatchExpressions", typing.Dict[builtins.str, typing.Any]]]] = None,
        match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''namespaceSelector defines which namespaces are allowed to submit workloads to this clusterQueue.

        Beyond this basic support for policy, a policy agent like
        Gatekeeper should be used to enforce more advanced policies.
        Defaults to null which is a nothing selector (no namespaces eligible).
        If set to an empty selector ``{}``, then all namespaces are eligible.

        :param match_expressions: matchExpressions is a list of label selector requirements. The requirements are ANDed.
        :param match_labels: matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is "key", the operator is "In", and the values array contains only "value". The requirements are ANDed.

        :default: null which is a nothing selector (no namespaces eligible).

        :schema: ClusterQueueSpecNamespaceSelector
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7326d7756459331a0ee25fb65ed8fc72a2c19b5e1c0d5d02c5a23121c1b126ba)
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
    ) -> typing.Optional[typing.List["ClusterQueueSpecNamespaceSelectorMatchExpressions"]]:
        '''matchExpressions is a list of label selector requirements.

        The requirements are ANDed.

        :schema: ClusterQueueSpecNamespaceSelector#matchExpressions
        '''
        result = self._values.get("match_expressions")
        return typing.cast(typing.Optional[typing.List["ClusterQueueSpecNamespaceSelectorMatchExpressions"]], result)

    @builtins.property
    def match_labels(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''matchLabels is a map of {key,value} pairs.

        A single {key,value} in the matchLabels
        map is equivalent to an element of matchExpressions, whose key field is "key", the
        operator is "In", and the values array contains only "value". The requirements are ANDed.

        :schema: ClusterQueueSpecNamespaceSelector#matchLabels
        '''
        result = self._values.get("match_labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecNamespaceSelector(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecNamespaceSelectorMatchExpressions",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "operator": "operator", "values": "values"},
)
class ClusterQueueSpecNamespaceSelectorMatchExpressions:
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

        :schema: ClusterQueueSpecNamespaceSelectorMatchExpressions
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__796da06ac2d044dc59c7a42e3571ecb0137fd1fb75294636576d78ff33683e9c)
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

        :schema: ClusterQueueSpecNamespaceSelectorMatchExpressions#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def operator(self) -> builtins.str:
        '''operator represents a key's relationship to a set of values.

        Valid operators are In, NotIn, Exists and DoesNotExist.

        :schema: ClusterQueueSpecNamespaceSelectorMatchExpressions#operator
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

        :schema: ClusterQueueSpecNamespaceSelectorMatchExpressions#values
        '''
        result = self._values.get("values")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecNamespaceSelectorMatchExpressions(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecPreemption",
    jsii_struct_bases=[],
    name_mapping={
        "borrow_within_cohort": "borrowWithinCohort",
        "reclaim_within_cohort": "reclaimWithinCohort",
        "within_cluster_queue": "withinClusterQueue",
    },
)
class ClusterQueueSpecPreemption:
    def __init__(
        self,
        *,
        borrow_within_cohort: typing.Optional[typing.Union["ClusterQueueSpecPreemptionBorrowWithinCohort", typing.Dict[builtins.str, typing.Any]]] = None,
        reclaim_within_cohort: typing.Optional["ClusterQueueSpecPreemptionReclaimWithinCohort"] = None,
        within_cluster_queue: typing.Optional["ClusterQueueSpecPreemptionWithinClusterQueue"] = None,
    ) -> None:
        '''preemption defines the preemption policies.

        :param borrow_within_cohort: borrowWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort if the workload requires borrowing. May only be configured with Classical Preemption, and **not** with Fair Sharing.
        :param reclaim_within_cohort: reclaimWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort that are using more than their nominal quota. The possible values are: - ``Never`` (default): do not preempt Workloads in the cohort. - ``LowerPriority``: **Classic Preemption** if the pending Workload fits within the nominal quota of its ClusterQueue, only preempt Workloads in the cohort that have lower priority than the pending Workload. **Fair Sharing** only preempt Workloads in the cohort that have lower priority than the pending Workload and that satisfy the Fair Sharing preemptionStategies. - ``Any``: **Classic Preemption** if the pending Workload fits within the nominal quota of its ClusterQueue, preempt any Workload in the cohort, irrespective of priority. **Fair Sharing** preempt Workloads in the cohort that satisfy the Fair Sharing preemptionStrategies.
        :param within_cluster_queue: withinClusterQueue determines whether a pending Workload that doesn't fit within the nominal quota for its ClusterQueue, can preempt active Workloads in the ClusterQueue. The possible values are: - ``Never`` (default): do not preempt Workloads in the ClusterQueue. - ``LowerPriority``: only preempt Workloads in the ClusterQueue that have lower priority than the pending Workload. - ``LowerOrNewerEqualPriority``: only preempt Workloads in the ClusterQueue that either have a lower priority than the pending workload or equal priority and are newer than the pending workload.

        :schema: ClusterQueueSpecPreemption
        '''
        if isinstance(borrow_within_cohort, dict):
            borrow_within_cohort = ClusterQueueSpecPreemptionBorrowWithinCohort(**borrow_within_cohort)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__befcd4779c8c5c38566e91ee504ea385afb130ee7be710097002ba2c1eb451d6)
            check_type(argname="argument borrow_within_cohort", value=borrow_within_cohort, expected_type=type_hints["borrow_within_cohort"])
            check_type(argname="argument reclaim_within_cohort", value=reclaim_within_cohort, expected_type=type_hints["reclaim_within_cohort"])
            check_type(argname="argument within_cluster_queue", value=within_cluster_queue, expected_type=type_hints["within_cluster_queue"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if borrow_within_cohort is not None:
            self._values["borrow_within_cohort"] = borrow_within_cohort
        if reclaim_within_cohort is not None:
            self._values["reclaim_within_cohort"] = reclaim_within_cohort
        if within_cluster_queue is not None:
            self._values["within_cluster_queue"] = within_cluster_queue

    @builtins.property
    def borrow_within_cohort(
        self,
    ) -> typing.Optional["ClusterQueueSpecPreemptionBorrowWithinCohort"]:
        '''borrowWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort if the workload requires borrowing.

        May only be configured with Classical Preemption, and **not** with Fair Sharing.

        :schema: ClusterQueueSpecPreemption#borrowWithinCohort
        '''
        result = self._values.get("borrow_within_cohort")
        return typing.cast(typing.Optional["ClusterQueueSpecPreemptionBorrowWithinCohort"], result)

    @builtins.property
    def reclaim_within_cohort(
        self,
    ) -> typing.Optional["ClusterQueueSpecPreemptionReclaimWithinCohort"]:
        '''reclaimWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort that are using more than their nominal quota.

        The possible values are:

        - ``Never`` (default): do not preempt Workloads in the cohort.
        - ``LowerPriority``: **Classic Preemption** if the pending Workload
          fits within the nominal quota of its ClusterQueue, only preempt
          Workloads in the cohort that have lower priority than the pending
          Workload. **Fair Sharing** only preempt Workloads in the cohort that
          have lower priority than the pending Workload and that satisfy the
          Fair Sharing preemptionStategies.
        - ``Any``: **Classic Preemption** if the pending Workload fits within
          the nominal quota of its ClusterQueue, preempt any Workload in the
          cohort, irrespective of priority. **Fair Sharing** preempt Workloads
          in the cohort that satisfy the Fair Sharing preemptionStrategies.

        :schema: ClusterQueueSpecPreemption#reclaimWithinCohort
        '''
        result = self._values.get("reclaim_within_cohort")
        return typing.cast(typing.Optional["ClusterQueueSpecPreemptionReclaimWithinCohort"], result)

    @builtins.property
    def within_cluster_queue(
        self,
    ) -> typing.Optional["ClusterQueueSpecPreemptionWithinClusterQueue"]:
        '''withinClusterQueue determines whether a pending Workload that doesn't fit within the nominal quota for its ClusterQueue, can preempt active Workloads in the ClusterQueue.

        The possible values are:

        - ``Never`` (default): do not preempt Workloads in the ClusterQueue.
        - ``LowerPriority``: only preempt Workloads in the ClusterQueue that have
          lower priority than the pending Workload.
        - ``LowerOrNewerEqualPriority``: only preempt Workloads in the ClusterQueue that
          either have a lower priority than the pending workload or equal priority
          and are newer than the pending workload.

        :schema: ClusterQueueSpecPreemption#withinClusterQueue
        '''
        result = self._values.get("within_cluster_queue")
        return typing.cast(typing.Optional["ClusterQueueSpecPreemptionWithinClusterQueue"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecPreemption(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecPreemptionBorrowWithinCohort",
    jsii_struct_bases=[],
    name_mapping={
        "max_priority_threshold": "maxPriorityThreshold",
        "policy": "policy",
    },
)
class ClusterQueueSpecPreemptionBorrowWithinCohort:
    def __init__(
        self,
        *,
        max_priority_threshold: typing.Optional[jsii.Number] = None,
        policy: typing.Optional["ClusterQueueSpecPreemptionBorrowWithinCohortPolicy"] = None,
    ) -> None:
        '''borrowWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort if the workload requires borrowing.

        May only be configured with Classical Preemption, and **not** with Fair Sharing.

        :param max_priority_threshold: maxPriorityThreshold allows to restrict the set of workloads which might be preempted by a borrowing workload, to only workloads with priority less than or equal to the specified threshold priority. When the threshold is not specified, then any workload satisfying the policy can be preempted by the borrowing workload.
        :param policy: policy determines the policy for preemption to reclaim quota within cohort while borrowing. Possible values are: - ``Never`` (default): do not allow for preemption, in other ClusterQueues within the cohort, for a borrowing workload. - ``LowerPriority``: allow preemption, in other ClusterQueues within the cohort, for a borrowing workload, but only if the preempted workloads are of lower priority.

        :schema: ClusterQueueSpecPreemptionBorrowWithinCohort
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__94bf69a98bf04481ff9a2b71eacd706b606818f9b5c33bff482c47f19c0d8ace)
            check_type(argname="argument max_priority_threshold", value=max_priority_threshold, expected_type=type_hints["max_priority_threshold"])
            check_type(argname="argument policy", value=policy, expected_type=type_hints["policy"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if max_priority_threshold is not None:
            self._values["max_priority_threshold"] = max_priority_threshold
        if policy is not None:
            self._values["policy"] = policy

    @builtins.property
    def max_priority_threshold(self) -> typing.Optional[jsii.Number]:
        '''maxPriorityThreshold allows to restrict the set of workloads which might be preempted by a borrowing workload, to only workloads with priority less than or equal to the specified threshold priority.

        When the threshold is not specified, then any workload satisfying the
        policy can be preempted by the borrowing workload.

        :schema: ClusterQueueSpecPreemptionBorrowWithinCohort#maxPriorityThreshold
        '''
        result = self._values.get("max_priority_threshold")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def policy(
        self,
    ) -> typing.Optional["ClusterQueueSpecPreemptionBorrowWithinCohortPolicy"]:
        '''policy determines the policy for preemption to reclaim quota within cohort while borrowing.

        Possible values are:

        - ``Never`` (default): do not allow for preemption, in other
          ClusterQueues within the cohort, for a borrowing workload.
        - ``LowerPriority``: allow preemption, in other ClusterQueues
          within the cohort, for a borrowing workload, but only if
          the preempted workloads are of lower priority.

        :schema: ClusterQueueSpecPreemptionBorrowWithinCohort#policy
        '''
        result = self._values.get("policy")
        return typing.cast(typing.Optional["ClusterQueueSpecPreemptionBorrowWithinCohortPolicy"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecPreemptionBorrowWithinCohort(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecPreemptionBorrowWithinCohortPolicy")
class ClusterQueueSpecPreemptionBorrowWithinCohortPolicy(enum.Enum):
    '''policy determines the policy for preemption to reclaim quota within cohort while borrowing.

    Possible values are:

    - ``Never`` (default): do not allow for preemption, in other
      ClusterQueues within the cohort, for a borrowing workload.
    - ``LowerPriority``: allow preemption, in other ClusterQueues
      within the cohort, for a borrowing workload, but only if
      the preempted workloads are of lower priority.

    :schema: ClusterQueueSpecPreemptionBorrowWithinCohortPolicy
    '''

    NEVER = "NEVER"
    '''Never.'''
    LOWER_PRIORITY = "LOWER_PRIORITY"
    '''LowerPriority.'''


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecPreemptionReclaimWithinCohort")
class ClusterQueueSpecPreemptionReclaimWithinCohort(enum.Enum):
    '''reclaimWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort that are using more than their nominal quota.

    The possible values are:

    - ``Never`` (default): do not preempt Workloads in the cohort.
    - ``LowerPriority``: **Classic Preemption** if the pending Workload
      fits within the nominal quota of its ClusterQueue, only preempt
      Workloads in the cohort that have lower priority than the pending
      Workload. **Fair Sharing** only preempt Workloads in the cohort that
      have lower priority than the pending Workload and that satisfy the
      Fair Sharing preemptionStategies.
    - ``Any``: **Classic Preemption** if the pending Workload fits within
      the nominal quota of its ClusterQueue, preempt any Workload in the
      cohort, irrespective of priority. **Fair Sharing** preempt Workloads
      in the cohort that satisfy the Fair Sharing preemptionStrategies.

    :schema: ClusterQueueSpecPreemptionReclaimWithinCohort
    '''

    NEVER = "NEVER"
    '''Never.'''
    LOWER_PRIORITY = "LOWER_PRIORITY"
    '''LowerPriority.'''
    ANY = "ANY"
    '''Any.'''


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecPreemptionWithinClusterQueue")
class ClusterQueueSpecPreemptionWithinClusterQueue(enum.Enum):
    '''withinClusterQueue determines whether a pending Workload that doesn't fit within the nominal quota for its ClusterQueue, can preempt active Workloads in the ClusterQueue.

    The possible values are:

    - ``Never`` (default): do not preempt Workloads in the ClusterQueue.
    - ``LowerPriority``: only preempt Workloads in the ClusterQueue that have
      lower priority than the pending Workload.
    - ``LowerOrNewerEqualPriority``: only preempt Workloads in the ClusterQueue that
      either have a lower priority than the pending workload or equal priority
      and are newer than the pending workload.

    :schema: ClusterQueueSpecPreemptionWithinClusterQueue
    '''

    NEVER = "NEVER"
    '''Never.'''
    LOWER_PRIORITY = "LOWER_PRIORITY"
    '''LowerPriority.'''
    LOWER_OR_NEWER_EQUAL_PRIORITY = "LOWER_OR_NEWER_EQUAL_PRIORITY"
    '''LowerOrNewerEqualPriority.'''


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecQueueingStrategy")
class ClusterQueueSpecQueueingStrategy(enum.Enum):
    '''queueingStrategy indicates the queueing strategy of the workloads across the queues in this ClusterQueue. Current Supported Strategies:.

    - StrictFIFO: workloads are ordered strictly by creation time.
      Older workloads that can't be admitted will block admitting newer
      workloads even if they fit available quota.
    - BestEffortFIFO: workloads are ordered by creation time,
      however older workloads that can't be admitted will not block
      admitting newer workloads that fit existing quota.

    :schema: ClusterQueueSpecQueueingStrategy
    '''

    STRICT_FIFO = "STRICT_FIFO"
    '''StrictFIFO.'''
    BEST_EFFORT_FIFO = "BEST_EFFORT_FIFO"
    '''BestEffortFIFO.'''


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecResourceGroups",
    jsii_struct_bases=[],
    name_mapping={"covered_resources": "coveredResources", "flavors": "flavors"},
)
class ClusterQueueSpecResourceGroups:
    def __init__(
        self,
        *,
        covered_resources: typing.Sequence[builtins.str],
        flavors: typing.Sequence[typing.Union["ClusterQueueSpecResourceGroupsFlavors", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''
        :param covered_resources: coveredResources is the list of resources covered by the flavors in this group. Examples: cpu, memory, vendor.com/gpu. The list cannot be empty and it can contain up to 64 resources. With a total of up to 256 covered resources across all resource groups in the ClusterQueue.
        :param flavors: flavors is the list of flavors that provide the resources of this group. Typically, different flavors represent different hardware models (e.g., gpu models, cpu architectures) or pricing models (on-demand vs spot cpus). Each flavor MUST list all the resources listed for this group in the same order as the .resources field. The list cannot be empty and it can contain up to 64 flavors, with a max of 256 total flavors across all resource groups in the ClusterQueue.

        :schema: ClusterQueueSpecResourceGroups
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ae276565131d0e8b124607a71372e013ff9c78f06cf97658863fd035bb0ccc98)
            check_type(argname="argument covered_resources", value=covered_resources, expected_type=type_hints["covered_resources"])
            check_type(argname="argument flavors", value=flavors, expected_type=type_hints["flavors"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "covered_resources": covered_resources,
            "flavors": flavors,
        }

    @builtins.property
    def covered_resources(self) -> typing.List[builtins.str]:
        '''coveredResources is the list of resources covered by the flavors in this group.

        Examples: cpu, memory, vendor.com/gpu.
        The list cannot be empty and it can contain up to 64 resources. With a total
        of up to 256 covered resources across all resource groups in the ClusterQueue.

        :schema: ClusterQueueSpecResourceGroups#coveredResources
        '''
        result = self._values.get("covered_resources")
        assert result is not None, "Required property 'covered_resources' is missing"
        return typing.cast(typing.List[builtins.str], result)

    @builtins.property
    def flavors(self) -> typing.List["ClusterQueueSpecResourceGroupsFlavors"]:
        '''flavors is the list of flavors that provide the resources of this group.

        Typically, different flavors represent different hardware models
        (e.g., gpu models, cpu architectures) or pricing models (on-demand vs spot
        cpus).
        Each flavor MUST list all the resources listed for this group in the same
        order as the .resources field.
        The list cannot be empty and it can contain up to 64 flavors, with a max of
        256 total flavors across all resource groups in the ClusterQueue.

        :schema: ClusterQueueSpecResourceGroups#flavors
        '''
        result = self._values.get("flavors")
        assert result is not None, "Required property 'flavors' is missing"
        return typing.cast(typing.List["ClusterQueueSpecResourceGroupsFlavors"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecResourceGroups(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecResourceGroupsFlavors",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "resources": "resources"},
)
class ClusterQueueSpecResourceGroupsFlavors:
    def __init__(
        self,
        *,
        name: builtins.str,
        resources: typing.Sequence[typing.Union["ClusterQueueSpecResourceGroupsFlavorsResources", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''
        :param name: name of this flavor. The name should match the .metadata.name of a ResourceFlavor. If a matching ResourceFlavor does not exist, the ClusterQueue will have an Active condition set to False.
        :param resources: resources is the list of quotas for this flavor per resource. There could be up to 64 resources.

        :schema: ClusterQueueSpecResourceGroupsFlavors
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7e362c59a31742f01b9da82e4f6732394c7b5175cf10fd9dbee079dc6c5d7ede)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument resources", value=resources, expected_type=type_hints["resources"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
            "resources": resources,
        }

    @builtins.property
    def name(self) -> builtins.str:
        '''name of this flavor.

        The name should match the .metadata.name of a
        ResourceFlavor. If a matching ResourceFlavor does not exist, the
        ClusterQueue will have an Active condition set to False.

        :schema: ClusterQueueSpecResourceGroupsFlavors#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def resources(
        self,
    ) -> typing.List["ClusterQueueSpecResourceGroupsFlavorsResources"]:
        '''resources is the list of quotas for this flavor per resource.

        There could be up to 64 resources.

        :schema: ClusterQueueSpecResourceGroupsFlavors#resources
        '''
        result = self._values.get("resources")
        assert result is not None, "Required property 'resources' is missing"
        return typing.cast(typing.List["ClusterQueueSpecResourceGroupsFlavorsResources"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecResourceGroupsFlavors(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecResourceGroupsFlavorsResources",
    jsii_struct_bases=[],
    name_mapping={
        "name": "name",
        "nominal_quota": "nominalQuota",
        "borrowing_limit": "borrowingLimit",
        "lending_limit": "lendingLimit",
    },
)
class ClusterQueueSpecResourceGroupsFlavorsResources:
    def __init__(
        self,
        *,
        name: builtins.str,
        nominal_quota: "ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota",
        borrowing_limit: typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit"] = None,
        lending_limit: typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit"] = None,
    ) -> None:
        '''
        :param name: name of this resource.
        :param nominal_quota: nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time. The nominalQuota must be non-negative. nominalQuota should represent the resources in the cluster available for running jobs (after discounting resources consumed by system components and pods not managed by kueue). In an autoscaled cluster, nominalQuota should account for resources that can be provided by a component such as Kubernetes cluster-autoscaler. If the ClusterQueue belongs to a cohort, the sum of the quotas for each (flavor, resource) combination defines the maximum quantity that can be allocated by a ClusterQueue in the cohort.
        :param borrowing_limit: borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort. In total, at a given time, Workloads in a ClusterQueue can consume a quantity of quota equal to nominalQuota+borrowingLimit, assuming the other ClusterQueues in the cohort have enough unused quota. If null, it means that there is no borrowing limit. If not null, it must be non-negative. borrowingLimit must be null if spec.cohort is empty.
        :param lending_limit: lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort. In total, at a given time, ClusterQueue reserves for its exclusive use a quantity of quota equals to nominalQuota - lendingLimit. If null, it means that there is no lending limit, meaning that all the nominalQuota can be borrowed by other clusterQueues in the cohort. If not null, it must be non-negative. lendingLimit must be null if spec.cohort is empty. This field is in beta stage and is enabled by default.

        :schema: ClusterQueueSpecResourceGroupsFlavorsResources
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c13a852c1a108f510b1ba74af9cee318267d3960123ab1a680247eaec8ffce39)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument nominal_quota", value=nominal_quota, expected_type=type_hints["nominal_quota"])
            check_type(argname="argument borrowing_limit", value=borrowing_limit, expected_type=type_hints["borrowing_limit"])
            check_type(argname="argument lending_limit", value=lending_limit, expected_type=type_hints["lending_limit"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
            "nominal_quota": nominal_quota,
        }
        if borrowing_limit is not None:
            self._values["borrowing_limit"] = borrowing_limit
        if lending_limit is not None:
            self._values["lending_limit"] = lending_limit

    @builtins.property
    def name(self) -> builtins.str:
        '''name of this resource.

        :schema: ClusterQueueSpecResourceGroupsFlavorsResources#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def nominal_quota(
        self,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota":
        '''nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time.

        The nominalQuota must be non-negative.
        nominalQuota should represent the resources in the cluster available for
        running jobs (after discounting resources consumed by system components
        and pods not managed by kueue). In an autoscaled cluster, nominalQuota
        should account for resources that can be provided by a component such as
        Kubernetes cluster-autoscaler.

        If the ClusterQueue belongs to a cohort, the sum of the quotas for each
        (flavor, resource) combination defines the maximum quantity that can be
        allocated by a ClusterQueue in the cohort.

        :schema: ClusterQueueSpecResourceGroupsFlavorsResources#nominalQuota
        '''
        result = self._values.get("nominal_quota")
        assert result is not None, "Required property 'nominal_quota' is missing"
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota", result)

    @builtins.property
    def borrowing_limit(
        self,
    ) -> typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit"]:
        '''borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort.

        In total, at a given time, Workloads in a ClusterQueue can consume a
        quantity of quota equal to nominalQuota+borrowingLimit, assuming the other
        ClusterQueues in the cohort have enough unused quota.
        If null, it means that there is no borrowing limit.
        If not null, it must be non-negative.
        borrowingLimit must be null if spec.cohort is empty.

        :schema: ClusterQueueSpecResourceGroupsFlavorsResources#borrowingLimit
        '''
        result = self._values.get("borrowing_limit")
        return typing.cast(typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit"], result)

    @builtins.property
    def lending_limit(
        self,
    ) -> typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit"]:
        '''lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort.

        In total, at a given time, ClusterQueue reserves for its exclusive use
        a quantity of quota equals to nominalQuota - lendingLimit.
        If null, it means that there is no lending limit, meaning that
        all the nominalQuota can be borrowed by other clusterQueues in the cohort.
        If not null, it must be non-negative.
        lendingLimit must be null if spec.cohort is empty.
        This field is in beta stage and is enabled by default.

        :schema: ClusterQueueSpecResourceGroupsFlavorsResources#lendingLimit
        '''
        result = self._values.get("lending_limit")
        return typing.cast(typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecResourceGroupsFlavorsResources(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit",
):
    '''borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort.

    In total, at a given time, Workloads in a ClusterQueue can consume a
    quantity of quota equal to nominalQuota+borrowingLimit, assuming the other
    ClusterQueues in the cohort have enough unused quota.
    If null, it means that there is no borrowing limit.
    If not null, it must be non-negative.
    borrowingLimit must be null if spec.cohort is empty.

    :schema: ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__53f50262790b1f3f9e8e5552d4fef3f2fbec0af98849df19fb7bba00a5d8f712)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__71ee74fba24b0b44da2ffc1bfc52e42b7cba4a143e2ee3cea8493f9fe17aef69)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit",
):
    '''lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort.

    In total, at a given time, ClusterQueue reserves for its exclusive use
    a quantity of quota equals to nominalQuota - lendingLimit.
    If null, it means that there is no lending limit, meaning that
    all the nominalQuota can be borrowed by other clusterQueues in the cohort.
    If not null, it must be non-negative.
    lendingLimit must be null if spec.cohort is empty.
    This field is in beta stage and is enabled by default.

    :schema: ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7831a4cf402401a1306525b03e89f1d967b38b815af5a481014f9cec71a6d683)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__64bdf444de13e27e643af9f06453e9508283ece7a42f4d60824d4e82abb08430)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota",
):
    '''nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time.

    The nominalQuota must be non-negative.
    nominalQuota should represent the resources in the cluster available for
    running jobs (after discounting resources consumed by system components
    and pods not managed by kueue). In an autoscaled cluster, nominalQuota
    should account for resources that can be provided by a component such as
    Kubernetes cluster-autoscaler.

    If the ClusterQueue belongs to a cohort, the sum of the quotas for each
    (flavor, resource) combination defines the maximum quantity that can be
    allocated by a ClusterQueue in the cohort.

    :schema: ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2a10d6b808fbf9ffff9a1131b953db0653c04cd2d78ce7cdf3150a53509a6886)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3c634211c25096abd028685ba3154edc2f801df17f210b9f02dbbe63edaff01d)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecStopPolicy")
class ClusterQueueSpecStopPolicy(enum.Enum):
    '''stopPolicy - if set to a value different from None, the ClusterQueue is considered Inactive, no new reservation being made.

    Depending on its value, its associated workloads will:

    - None - Workloads are admitted
    - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation.
    - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

    :schema: ClusterQueueSpecStopPolicy
    '''

    NONE = "NONE"
    '''None.'''
    HOLD = "HOLD"
    '''Hold.'''
    HOLD_AND_DRAIN = "HOLD_AND_DRAIN"
    '''HoldAndDrain.'''


class ClusterQueueV1Beta2(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2",
):
    '''ClusterQueue is the Schema for the clusterQueue API.

    :schema: ClusterQueueV1Beta2
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ClusterQueueV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "ClusterQueueV1Beta2" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the ClusterQueue.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__939fc59f8a313e8e3b6323bcdb1d3de514b7add12aee6035ea0af5ed6c705247)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = ClusterQueueV1Beta2Props(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ClusterQueueV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "ClusterQueueV1Beta2".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the ClusterQueue.
        '''
        props = ClusterQueueV1Beta2Props(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "ClusterQueueV1Beta2".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2Props",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class ClusterQueueV1Beta2Props:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ClusterQueueV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ClusterQueue is the Schema for the clusterQueue API.

        :param metadata: 
        :param spec: spec is the specification of the ClusterQueue.

        :schema: ClusterQueueV1Beta2
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = ClusterQueueV1Beta2Spec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__aebc136ca98ec187b4767bedb7767601f47b33c3001e915a86e9930182ff7538)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: ClusterQueueV1Beta2#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["ClusterQueueV1Beta2Spec"]:
        '''spec is the specification of the ClusterQueue.

        :schema: ClusterQueueV1Beta2#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2Spec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2Props(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2Spec",
    jsii_struct_bases=[],
    name_mapping={
        "admission_checks_strategy": "admissionChecksStrategy",
        "admission_scope": "admissionScope",
        "cohort_name": "cohortName",
        "concurrent_admission_policy": "concurrentAdmissionPolicy",
        "fair_sharing": "fairSharing",
        "flavor_fungibility": "flavorFungibility",
        "namespace_selector": "namespaceSelector",
        "preemption": "preemption",
        "queueing_strategy": "queueingStrategy",
        "resource_groups": "resourceGroups",
        "stop_policy": "stopPolicy",
    },
)
class ClusterQueueV1Beta2Spec:
    def __init__(
        self,
        *,
        admission_checks_strategy: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecAdmissionChecksStrategy", typing.Dict[builtins.str, typing.Any]]] = None,
        admission_scope: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecAdmissionScope", typing.Dict[builtins.str, typing.Any]]] = None,
        cohort_name: typing.Optional[builtins.str] = None,
        concurrent_admission_policy: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy", typing.Dict[builtins.str, typing.Any]]] = None,
        fair_sharing: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecFairSharing", typing.Dict[builtins.str, typing.Any]]] = None,
        flavor_fungibility: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecFlavorFungibility", typing.Dict[builtins.str, typing.Any]]] = None,
        namespace_selector: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecNamespaceSelector", typing.Dict[builtins.str, typing.Any]]] = None,
        preemption: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecPreemption", typing.Dict[builtins.str, typing.Any]]] = None,
        queueing_strategy: typing.Optional["ClusterQueueV1Beta2SpecQueueingStrategy"] = None,
        resource_groups: typing.Optional[typing.Sequence[typing.Union["ClusterQueueV1Beta2SpecResourceGroups", typing.Dict[builtins.str, typing.Any]]]] = None,
        stop_policy: typing.Optional["ClusterQueueV1Beta2SpecStopPolicy"] = None,
    ) -> None:
        '''spec is the specification of the ClusterQueue.

        :param admission_checks_strategy: admissionChecksStrategy defines a list of strategies to determine which ResourceFlavors require AdmissionChecks.
        :param admission_scope: admissionScope indicates whether ClusterQueue uses the Admission Fair Sharing.
        :param cohort_name: cohortName that this ClusterQueue belongs to. CQs that belong to the same cohort can borrow unused resources from each other. A CQ can be a member of a single borrowing cohort. A workload submitted to a queue referencing this CQ can borrow quota from any CQ in the cohort. Only quota for the [resource, flavor] pairs listed in the CQ can be borrowed. If empty, this ClusterQueue cannot borrow from any other ClusterQueue and vice versa. A cohort is a name that links CQs together, but it doesn't reference any object.
        :param concurrent_admission_policy: concurrentAdmissionPolicy defines the configuration for ConcurrentAdmission feature. Its main capability is to allow Workloads pursuing multiple flavors at the same time, and starting on the first flavor that led to admission. Additionally after the admission, Workloads can still try to pursue capacity on the more preferable flavors while running. It enables them to migrate to more preferable, whenever capacity appears.
        :param fair_sharing: fairSharing defines the properties of the ClusterQueue when participating in FairSharing. The values are only relevant if FairSharing is enabled in the Kueue configuration.
        :param flavor_fungibility: flavorFungibility defines whether a workload should try the next flavor before borrowing or preempting in the flavor being evaluated.
        :param namespace_selector: namespaceSelector defines which namespaces are allowed to submit workloads to this clusterQueue. Beyond this basic support for policy, a policy agent like Gatekeeper should be used to enforce more advanced policies. Defaults to null which is a nothing selector (no namespaces eligible). If set to an empty selector ``{}``, then all namespaces are eligible. Default: null which is a nothing selector (no namespaces eligible).
        :param preemption: preemption defines the preemption policies.
        :param queueing_strategy: queueingStrategy indicates the queueing strategy of the workloads across the queues in this ClusterQueue. Current Supported Strategies:. - StrictFIFO: workloads are ordered strictly by creation time. Older workloads that can't be admitted will block admitting newer workloads even if they fit available quota. - BestEffortFIFO: workloads are ordered by creation time, however older workloads that can't be admitted will not block admitting newer workloads that fit existing quota.
        :param resource_groups: resourceGroups describes groups of resources. Each resource group defines the list of resources and a list of flavors that provide quotas for these resources. Each resource and each flavor can only form part of one resource group. resourceGroups can be up to 16, with a max of 256 total flavors across all groups.
        :param stop_policy: stopPolicy - if set to a value different from None, the ClusterQueue is considered Inactive, no new reservation being made. Depending on its value, its associated workloads will: - None - Workloads are admitted - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation. - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

        :schema: ClusterQueueV1Beta2Spec
        '''
        if isinstance(admission_checks_strategy, dict):
            admission_checks_strategy = ClusterQueueV1Beta2SpecAdmissionChecksStrategy(**admission_checks_strategy)
        if isinstance(admission_scope, dict):
            admission_scope = ClusterQueueV1Beta2SpecAdmissionScope(**admission_scope)
        if isinstance(concurrent_admission_policy, dict):
            concurrent_admission_policy = ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy(**concurrent_admission_policy)
        if isinstance(fair_sharing, dict):
            fair_sharing = ClusterQueueV1Beta2SpecFairSharing(**fair_sharing)
        if isinstance(flavor_fungibility, dict):
            flavor_fungibility = ClusterQueueV1Beta2SpecFlavorFungibility(**flavor_fungibility)
        if isinstance(namespace_selector, dict):
            namespace_selector = ClusterQueueV1Beta2SpecNamespaceSelector(**namespace_selector)
        if isinstance(preemption, dict):
            preemption = ClusterQueueV1Beta2SpecPreemption(**preemption)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__853b307ac34d8db4f5d935d37425af11c5ae8e73ca0ac01381e22836e772f9c2)
            check_type(argname="argument admission_checks_strategy", value=admission_checks_strategy, expected_type=type_hints["admission_checks_strategy"])
            check_type(argname="argument admission_scope", value=admission_scope, expected_type=type_hints["admission_scope"])
            check_type(argname="argument cohort_name", value=cohort_name, expected_type=type_hints["cohort_name"])
            check_type(argname="argument concurrent_admission_policy", value=concurrent_admission_policy, expected_type=type_hints["concurrent_admission_policy"])
            check_type(argname="argument fair_sharing", value=fair_sharing, expected_type=type_hints["fair_sharing"])
            check_type(argname="argument flavor_fungibility", value=flavor_fungibility, expected_type=type_hints["flavor_fungibility"])
            check_type(argname="argument namespace_selector", value=namespace_selector, expected_type=type_hints["namespace_selector"])
            check_type(argname="argument preemption", value=preemption, expected_type=type_hints["preemption"])
            check_type(argname="argument queueing_strategy", value=queueing_strategy, expected_type=type_hints["queueing_strategy"])
            check_type(argname="argument resource_groups", value=resource_groups, expected_type=type_hints["resource_groups"])
            check_type(argname="argument stop_policy", value=stop_policy, expected_type=type_hints["stop_policy"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if admission_checks_strategy is not None:
            self._values["admission_checks_strategy"] = admission_checks_strategy
        if admission_scope is not None:
            self._values["admission_scope"] = admission_scope
        if cohort_name is not None:
            self._values["cohort_name"] = cohort_name
        if concurrent_admission_policy is not None:
            self._values["concurrent_admission_policy"] = concurrent_admission_policy
        if fair_sharing is not None:
            self._values["fair_sharing"] = fair_sharing
        if flavor_fungibility is not None:
            self._values["flavor_fungibility"] = flavor_fungibility
        if namespace_selector is not None:
            self._values["namespace_selector"] = namespace_selector
        if preemption is not None:
            self._values["preemption"] = preemption
        if queueing_strategy is not None:
            self._values["queueing_strategy"] = queueing_strategy
        if resource_groups is not None:
            self._values["resource_groups"] = resource_groups
        if stop_policy is not None:
            self._values["stop_policy"] = stop_policy

    @builtins.property
    def admission_checks_strategy(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecAdmissionChecksStrategy"]:
        '''admissionChecksStrategy defines a list of strategies to determine which ResourceFlavors require AdmissionChecks.

        :schema: ClusterQueueV1Beta2Spec#admissionChecksStrategy
        '''
        result = self._values.get("admission_checks_strategy")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecAdmissionChecksStrategy"], result)

    @builtins.property
    def admission_scope(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecAdmissionScope"]:
        '''admissionScope indicates whether ClusterQueue uses the Admission Fair Sharing.

        :schema: ClusterQueueV1Beta2Spec#admissionScope
        '''
        result = self._values.get("admission_scope")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecAdmissionScope"], result)

    @builtins.property
    def cohort_name(self) -> typing.Optional[builtins.str]:
        '''cohortName that this ClusterQueue belongs to. CQs that belong to the same cohort can borrow unused resources from each other.

        A CQ can be a member of a single borrowing cohort. A workload submitted
        to a queue referencing this CQ can borrow quota from any CQ in the cohort.
        Only quota for the [resource, flavor] pairs listed in the CQ can be
        borrowed.
        If empty, this ClusterQueue cannot borrow from any other ClusterQueue and
        vice versa.

        A cohort is a name that links CQs together, but it doesn't reference any
        object.

        :schema: ClusterQueueV1Beta2Spec#cohortName
        '''
        result = self._values.get("cohort_name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def concurrent_admission_policy(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy"]:
        '''concurrentAdmissionPolicy defines the configuration for ConcurrentAdmission feature.

        Its main capability is to allow Workloads pursuing multiple flavors at the same time, and starting on the first flavor that led to admission.
        Additionally after the admission, Workloads can still try to pursue capacity on the more preferable flavors while running.
        It enables them to migrate to more preferable, whenever capacity appears.

        :schema: ClusterQueueV1Beta2Spec#concurrentAdmissionPolicy
        '''
        result = self._values.get("concurrent_admission_policy")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy"], result)

    @builtins.property
    def fair_sharing(self) -> typing.Optional["ClusterQueueV1Beta2SpecFairSharing"]:
        '''fairSharing defines the properties of the ClusterQueue when participating in FairSharing.

        The values are only relevant
        if FairSharing is enabled in the Kueue configuration.

        :schema: ClusterQueueV1Beta2Spec#fairSharing
        '''
        result = self._values.get("fair_sharing")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecFairSharing"], result)

    @builtins.property
    def flavor_fungibility(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibility"]:
        '''flavorFungibility defines whether a workload should try the next flavor before borrowing or preempting in the flavor being evaluated.

        :schema: ClusterQueueV1Beta2Spec#flavorFungibility
        '''
        result = self._values.get("flavor_fungibility")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibility"], result)

    @builtins.property
    def namespace_selector(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecNamespaceSelector"]:
        '''namespaceSelector defines which namespaces are allowed to submit workloads to this clusterQueue.

        Beyond this basic support for policy, a policy agent like
        Gatekeeper should be used to enforce more advanced policies.
        Defaults to null which is a nothing selector (no namespaces eligible).
        If set to an empty selector ``{}``, then all namespaces are eligible.

        :default: null which is a nothing selector (no namespaces eligible).

        :schema: ClusterQueueV1Beta2Spec#namespaceSelector
        '''
        result = self._values.get("namespace_selector")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecNamespaceSelector"], result)

    @builtins.property
    def preemption(self) -> typing.Optional["ClusterQueueV1Beta2SpecPreemption"]:
        '''preemption defines the preemption policies.

        :schema: ClusterQueueV1Beta2Spec#preemption
        '''
        result = self._values.get("preemption")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecPreemption"], result)

    @builtins.property
    def queueing_strategy(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecQueueingStrategy"]:
        '''queueingStrategy indicates the queueing strategy of the workloads across the queues in this ClusterQueue. Current Supported Strategies:.

        - StrictFIFO: workloads are ordered strictly by creation time.
          Older workloads that can't be admitted will block admitting newer
          workloads even if they fit available quota.
        - BestEffortFIFO: workloads are ordered by creation time,
          however older workloads that can't be admitted will not block
          admitting newer workloads that fit existing quota.

        :schema: ClusterQueueV1Beta2Spec#queueingStrategy
        '''
        result = self._values.get("queueing_strategy")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecQueueingStrategy"], result)

    @builtins.property
    def resource_groups(
        self,
    ) -> typing.Optional[typing.List["ClusterQueueV1Beta2SpecResourceGroups"]]:
        '''resourceGroups describes groups of resources.

        Each resource group defines the list of resources and a list of flavors
        that provide quotas for these resources.
        Each resource and each flavor can only form part of one resource group.
        resourceGroups can be up to 16, with a max of 256 total flavors across all groups.

        :schema: ClusterQueueV1Beta2Spec#resourceGroups
        '''
        result = self._values.get("resource_groups")
        return typing.cast(typing.Optional[typing.List["ClusterQueueV1Beta2SpecResourceGroups"]], result)

    @builtins.property
    def stop_policy(self) -> typing.Optional["ClusterQueueV1Beta2SpecStopPolicy"]:
        '''stopPolicy - if set to a value different from None, the ClusterQueue is considered Inactive, no new reservation being made.

        Depending on its value, its associated workloads will:

        - None - Workloads are admitted
        - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation.
        - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

        :schema: ClusterQueueV1Beta2Spec#stopPolicy
        '''
        result = self._values.get("stop_policy")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecStopPolicy"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2Spec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecAdmissionChecksStrategy",
    jsii_struct_bases=[],
    name_mapping={"admission_checks": "admissionChecks"},
)
class ClusterQueueV1Beta2SpecAdmissionChecksStrategy:
    def __init__(
        self,
        *,
        admission_checks: typing.Sequence[typing.Union["ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''admissionChecksStrategy defines a list of strategies to determine which ResourceFlavors require AdmissionChecks.

        :param admission_checks: admissionChecks is a list of strategies for AdmissionChecks.

        :schema: ClusterQueueV1Beta2SpecAdmissionChecksStrategy
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a1fcd7df41ab1d246a56b72452949d4b62f9ef3391507b6bf86337dee348865e)
            check_type(argname="argument admission_checks", value=admission_checks, expected_type=type_hints["admission_checks"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "admission_checks": admission_checks,
        }

    @builtins.property
    def admission_checks(
        self,
    ) -> typing.List["ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks"]:
        '''admissionChecks is a list of strategies for AdmissionChecks.

        :schema: ClusterQueueV1Beta2SpecAdmissionChecksStrategy#admissionChecks
        '''
        result = self._values.get("admission_checks")
        assert result is not None, "Required property 'admission_checks' is missing"
        return typing.cast(typing.List["ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecAdmissionChecksStrategy(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "on_flavors": "onFlavors"},
)
class ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks:
    def __init__(
        self,
        *,
        name: builtins.str,
        on_flavors: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''AdmissionCheckStrategyRule defines rules for a single AdmissionCheck.

        :param name: name is an AdmissionCheck's name.
        :param on_flavors: onFlavors is a list of ResourceFlavors' names that this AdmissionCheck should run for. If empty, the AdmissionCheck will run for all workloads submitted to the ClusterQueue.

        :schema: ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6ecd4d781901f0dfc4b603e5df54a3872861515005b6d53a4f543a949ea8af82)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument on_flavors", value=on_flavors, expected_type=type_hints["on_flavors"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
        }
        if on_flavors is not None:
            self._values["on_flavors"] = on_flavors

    @builtins.property
    def name(self) -> builtins.str:
        '''name is an AdmissionCheck's name.

        :schema: ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def on_flavors(self) -> typing.Optional[typing.List[builtins.str]]:
        '''onFlavors is a list of ResourceFlavors' names that this AdmissionCheck should run for.

        If empty, the AdmissionCheck will run for all workloads submitted to the ClusterQueue.

        :schema: ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks#onFlavors
        '''
        result = self._values.get("on_flavors")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecAdmissionScope",
    jsii_struct_bases=[],
    name_mapping={"admission_mode": "admissionMode"},
)
class ClusterQueueV1Beta2SpecAdmissionScope:
    def __init__(
        self,
        *,
        admission_mode: "ClusterQueueV1Beta2SpecAdmissionScopeAdmissionMode",
    ) -> None:
        '''admissionScope indicates whether ClusterQueue uses the Admission Fair Sharing.

        :param admission_mode: admissionMode indicates which mode for AdmissionFairSharing should be used in the AdmissionScope. Possible values are: - UsageBasedAdmissionFairSharing - NoAdmissionFairSharing

        :schema: ClusterQueueV1Beta2SpecAdmissionScope
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8afc5c17012c17e51c160c78a2ac6820e1192e2a05e13b230718d4581c96a3b6)
            check_type(argname="argument admission_mode", value=admission_mode, expected_type=type_hints["admission_mode"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "admission_mode": admission_mode,
        }

    @builtins.property
    def admission_mode(self) -> "ClusterQueueV1Beta2SpecAdmissionScopeAdmissionMode":
        '''admissionMode indicates which mode for AdmissionFairSharing should be used in the AdmissionScope.

        Possible values are:

        - UsageBasedAdmissionFairSharing
        - NoAdmissionFairSharing

        :schema: ClusterQueueV1Beta2SpecAdmissionScope#admissionMode
        '''
        result = self._values.get("admission_mode")
        assert result is not None, "Required property 'admission_mode' is missing"
        return typing.cast("ClusterQueueV1Beta2SpecAdmissionScopeAdmissionMode", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecAdmissionScope(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecAdmissionScopeAdmissionMode")
class ClusterQueueV1Beta2SpecAdmissionScopeAdmissionMode(enum.Enum):
    '''admissionMode indicates which mode for AdmissionFairSharing should be used in the AdmissionScope.

    Possible values are:

    - UsageBasedAdmissionFairSharing
    - NoAdmissionFairSharing

    :schema: ClusterQueueV1Beta2SpecAdmissionScopeAdmissionMode
    '''

    USAGE_BASED_ADMISSION_FAIR_SHARING = "USAGE_BASED_ADMISSION_FAIR_SHARING"
    '''UsageBasedAdmissionFairSharing.'''
    NO_ADMISSION_FAIR_SHARING = "NO_ADMISSION_FAIR_SHARING"
    '''NoAdmissionFairSharing.'''


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy",
    jsii_struct_bases=[],
    name_mapping={"migration": "migration"},
)
class ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy:
    def __init__(
        self,
        *,
        migration: typing.Union["ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''concurrentAdmissionPolicy defines the configuration for ConcurrentAdmission feature.

        Its main capability is to allow Workloads pursuing multiple flavors at the same time, and starting on the first flavor that led to admission.
        Additionally after the admission, Workloads can still try to pursue capacity on the more preferable flavors while running.
        It enables them to migrate to more preferable, whenever capacity appears.

        :param migration: migration defines the constraints on Workload's migration. The mechanism itself creates "Variants" of the same Workload, each pursuing a different flavor. All Variants belong to the same "Parent" Workload, and are picked up by Kueue scheduler independently. Once one of the Variants is admitted, the Parent Workload gets also admitted. The Variants that pursue more favorable flavors keep trying to get admitted and if they succeed, the Workload migrates to the new flavor. The Variants that pursue less favorable flavors are deactivated. Flavor preferences are expressed through the order of flavors in the ClusterQueue.

        :schema: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy
        '''
        if isinstance(migration, dict):
            migration = ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration(**migration)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b3edfc6f6854c7d62cba5fb9edddd821afb7d04fdb7de43abe2c8e35bd0b2e08)
            check_type(argname="argument migration", value=migration, expected_type=type_hints["migration"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "migration": migration,
        }

    @builtins.property
    def migration(self) -> "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration":
        '''migration defines the constraints on Workload's migration.

        The mechanism itself creates "Variants" of the same Workload, each pursuing a different flavor.
        All Variants belong to the same "Parent" Workload, and are picked up by Kueue scheduler independently.
        Once one of the Variants is admitted, the Parent Workload gets also admitted. The Variants that pursue more
        favorable flavors keep trying to get admitted and if they succeed, the Workload migrates to the new flavor.
        The Variants that pursue less favorable flavors are deactivated.
        Flavor preferences are expressed through the order of flavors in the ClusterQueue.

        :schema: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy#migration
        '''
        result = self._values.get("migration")
        assert result is not None, "Required property 'migration' is missing"
        return typing.cast("ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration",
    jsii_struct_bases=[],
    name_mapping={"mode": "mode", "constraints": "constraints"},
)
class ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration:
    def __init__(
        self,
        *,
        mode: "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationMode",
        constraints: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''migration defines the constraints on Workload's migration.

        The mechanism itself creates "Variants" of the same Workload, each pursuing a different flavor.
        All Variants belong to the same "Parent" Workload, and are picked up by Kueue scheduler independently.
        Once one of the Variants is admitted, the Parent Workload gets also admitted. The Variants that pursue more
        favorable flavors keep trying to get admitted and if they succeed, the Workload migrates to the new flavor.
        The Variants that pursue less favorable flavors are deactivated.
        Flavor preferences are expressed through the order of flavors in the ClusterQueue.

        :param mode: mode defines the mode of Workload's migration. The possible values are: - ``TryPreferredFlavors`` (default): a Workload will try to migrate to the preferred flavor after it's admitted and running. - ``RetainFirstAdmission``: a Workload, once admitted to a flavor, will stick to a flavor and will not be migrated.
        :param constraints: constraints defines the constraints of Workload's migration.

        :schema: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration
        '''
        if isinstance(constraints, dict):
            constraints = ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints(**constraints)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8210d386dfdcd21752e1b6335c428bbe241a2ee474118a5e52486805b26c82a0)
            check_type(argname="argument mode", value=mode, expected_type=type_hints["mode"])
            check_type(argname="argument constraints", value=constraints, expected_type=type_hints["constraints"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "mode": mode,
        }
        if constraints is not None:
            self._values["constraints"] = constraints

    @builtins.property
    def mode(self) -> "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationMode":
        '''mode defines the mode of Workload's migration.

        The possible values are:

        - ``TryPreferredFlavors`` (default): a Workload will try to migrate to the preferred flavor after it's admitted and running.
        - ``RetainFirstAdmission``: a Workload, once admitted to a flavor, will stick to a flavor and will not be migrated.

        :schema: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration#mode
        '''
        result = self._values.get("mode")
        assert result is not None, "Required property 'mode' is missing"
        return typing.cast("ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationMode", result)

    @builtins.property
    def constraints(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints"]:
        '''constraints defines the constraints of Workload's migration.

        :schema: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration#constraints
        '''
        result = self._values.get("constraints")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints",
    jsii_struct_bases=[],
    name_mapping={"last_acceptable_flavor_name": "lastAcceptableFlavorName"},
)
class ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints:
    def __init__(
        self,
        *,
        last_acceptable_flavor_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''constraints defines the constraints of Workload's migration.

        :param last_acceptable_flavor_name: lastAcceptableFlavorName defines the last acceptable flavor a Workload can migrate to. The order is based on the order of flavors in ClusterQueue. It can only be used if the Mode is ``TryPreferredFlavors``. If the Mode is ``TryPreferredFlavors`` and LastAcceptableFlavorName is not specified, then Workload can migrate to any flavor that is more preferable than the one it was admitted to.

        :schema: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__65da4fecc9ca8604369602ed4ace272522171e2a5bd70096dcbc5f87d739aa70)
            check_type(argname="argument last_acceptable_flavor_name", value=last_acceptable_flavor_name, expected_type=type_hints["last_acceptable_flavor_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if last_acceptable_flavor_name is not None:
            self._values["last_acceptable_flavor_name"] = last_acceptable_flavor_name

    @builtins.property
    def last_acceptable_flavor_name(self) -> typing.Optional[builtins.str]:
        '''lastAcceptableFlavorName defines the last acceptable flavor a Workload can migrate to.

        The order is based on the order of flavors in ClusterQueue.
        It can only be used if the Mode is ``TryPreferredFlavors``.
        If the Mode is ``TryPreferredFlavors`` and LastAcceptableFlavorName is not specified, then
        Workload can migrate to any flavor that is more preferable than the one it was admitted to.

        :schema: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints#lastAcceptableFlavorName
        '''
        result = self._values.get("last_acceptable_flavor_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationMode"
)
class ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationMode(enum.Enum):
    '''mode defines the mode of Workload's migration.

    The possible values are:

    - ``TryPreferredFlavors`` (default): a Workload will try to migrate to the preferred flavor after it's admitted and running.
    - ``RetainFirstAdmission``: a Workload, once admitted to a flavor, will stick to a flavor and will not be migrated.

    :schema: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationMode
    '''

    TRY_PREFERRED_FLAVORS = "TRY_PREFERRED_FLAVORS"
    '''TryPreferredFlavors.'''
    RETAIN_FIRST_ADMISSION = "RETAIN_FIRST_ADMISSION"
    '''RetainFirstAdmission.'''


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecFairSharing",
    jsii_struct_bases=[],
    name_mapping={"weight": "weight"},
)
class ClusterQueueV1Beta2SpecFairSharing:
    def __init__(
        self,
        *,
        weight: typing.Optional["ClusterQueueV1Beta2SpecFairSharingWeight"] = None,
    ) -> None:
        '''fairSharing defines the properties of the ClusterQueue when participating in FairSharing.

        The values are only relevant
        if FairSharing is enabled in the Kueue configuration.

        :param weight: weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort. The share is based on the dominant resource usage above nominal quotas for each resource, divided by the weight. Admission prioritizes scheduling workloads from ClusterQueues and Cohorts with the lowest share and preempting workloads from the ClusterQueues and Cohorts with the highest share. A zero weight implies infinite share value, meaning that this Node will always be at disadvantage against other ClusterQueues and Cohorts. When not 0, Weight must be greater than 10^-9.

        :schema: ClusterQueueV1Beta2SpecFairSharing
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__eb4a2dbe6a1afbc8abe4da379e66cca70fba9b3808d8f0a0ca33cb121c490041)
            check_type(argname="argument weight", value=weight, expected_type=type_hints["weight"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if weight is not None:
            self._values["weight"] = weight

    @builtins.property
    def weight(self) -> typing.Optional["ClusterQueueV1Beta2SpecFairSharingWeight"]:
        '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

        The share is based on the dominant resource usage
        above nominal quotas for each resource, divided by the
        weight.  Admission prioritizes scheduling workloads from
        ClusterQueues and Cohorts with the lowest share and
        preempting workloads from the ClusterQueues and Cohorts
        with the highest share.  A zero weight implies infinite
        share value, meaning that this Node will always be at
        disadvantage against other ClusterQueues and Cohorts.
        When not 0, Weight must be greater than 10^-9.

        :schema: ClusterQueueV1Beta2SpecFairSharing#weight
        '''
        result = self._values.get("weight")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecFairSharingWeight"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecFairSharing(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ClusterQueueV1Beta2SpecFairSharingWeight(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecFairSharingWeight",
):
    '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

    The share is based on the dominant resource usage
    above nominal quotas for each resource, divided by the
    weight.  Admission prioritizes scheduling workloads from
    ClusterQueues and Cohorts with the lowest share and
    preempting workloads from the ClusterQueues and Cohorts
    with the highest share.  A zero weight implies infinite
    share value, meaning that this Node will always be at
    disadvantage against other ClusterQueues and Cohorts.
    When not 0, Weight must be greater than 10^-9.

    :schema: ClusterQueueV1Beta2SpecFairSharingWeight
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueV1Beta2SpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ecb52e6d34f006f59723ec29c06167cecfab8b0cddee401f28a4fda062c9cbb6)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueV1Beta2SpecFairSharingWeight", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueV1Beta2SpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8cb9dc934d72cbe4d395073ecd96dceb3eb291b1fc8efc222f5d35f10e9ef4ee)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueV1Beta2SpecFairSharingWeight", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecFlavorFungibility",
    jsii_struct_bases=[],
    name_mapping={
        "preference": "preference",
        "when_can_borrow": "whenCanBorrow",
        "when_can_preempt": "whenCanPreempt",
    },
)
class ClusterQueueV1Beta2SpecFlavorFungibility:
    def __init__(
        self,
        *,
        preference: typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityPreference"] = None,
        when_can_borrow: typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow"] = None,
        when_can_preempt: typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt"] = None,
    ) -> None:
        '''flavorFungibility defines whether a workload should try the next flavor before borrowing or preempting in the flavor being evaluated.

        :param preference: preference guides the choosing of the flavor for admission in case all candidate flavors require either preemption, borrowing, or both. The possible values are: - ``BorrowingOverPreemption`` (default): prefer to use borrowing rather than preemption when such a choice is possible. More technically it minimizes the borrowing distance in the cohort tree, and solves tie-breaks by preferring better preemption mode (reclaim over preemption within ClusterQueue). - ``PreemptionOverBorrowing``: prefer to use preemption rather than borrowing when such a choice is possible. More technically it optimizes the preemption mode (reclaim over preemption within ClusterQueue), and solves tie-breaks by minimizing the borrowing distance in the cohort tree.
        :param when_can_borrow: whenCanBorrow determines whether a workload should try the next flavor before borrowing in current flavor. The possible values are:. - ``MayStopSearch`` (default): stop the search for candidate flavors if workload fits or requires borrowing to fit. - ``TryNextFlavor``: try next flavor if workload requires borrowing to fit.
        :param when_can_preempt: whenCanPreempt determines whether a workload should try the next flavor before preempting in current flavor. The possible values are:. - ``MayStopSearch``: stop the search for candidate flavors if workload fits or requires preemption to fit. - ``TryNextFlavor`` (default): try next flavor if workload requires preemption to fit in current flavor.

        :schema: ClusterQueueV1Beta2SpecFlavorFungibility
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__79f62161d9df292a0ce7bcb576ab5b2b2a5f1f5c978f1ad0eaa894da84106f7e)
            check_type(argname="argument preference", value=preference, expected_type=type_hints["preference"])
            check_type(argname="argument when_can_borrow", value=when_can_borrow, expected_type=type_hints["when_can_borrow"])
            check_type(argname="argument when_can_preempt", value=when_can_preempt, expected_type=type_hints["when_can_preempt"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if preference is not None:
            self._values["preference"] = preference
        if when_can_borrow is not None:
            self._values["when_can_borrow"] = when_can_borrow
        if when_can_preempt is not None:
            self._values["when_can_preempt"] = when_can_preempt

    @builtins.property
    def preference(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityPreference"]:
        '''preference guides the choosing of the flavor for admission in case all candidate flavors require either preemption, borrowing, or both.

        The possible values are:

        - ``BorrowingOverPreemption`` (default): prefer to use borrowing rather than preemption
          when such a choice is possible. More technically it minimizes the borrowing distance
          in the cohort tree, and solves tie-breaks by preferring better preemption mode
          (reclaim over preemption within ClusterQueue).
        - ``PreemptionOverBorrowing``: prefer to use preemption rather than borrowing
          when such a choice is possible.  More technically it optimizes the preemption mode
          (reclaim over preemption within ClusterQueue), and solves tie-breaks by minimizing
          the borrowing distance in the cohort tree.

        :schema: ClusterQueueV1Beta2SpecFlavorFungibility#preference
        '''
        result = self._values.get("preference")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityPreference"], result)

    @builtins.property
    def when_can_borrow(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow"]:
        '''whenCanBorrow determines whether a workload should try the next flavor before borrowing in current flavor. The possible values are:.

        - ``MayStopSearch`` (default): stop the search for candidate flavors if workload
          fits or requires borrowing to fit.
        - ``TryNextFlavor``: try next flavor if workload requires borrowing to fit.

        :schema: ClusterQueueV1Beta2SpecFlavorFungibility#whenCanBorrow
        '''
        result = self._values.get("when_can_borrow")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow"], result)

    @builtins.property
    def when_can_preempt(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt"]:
        '''whenCanPreempt determines whether a workload should try the next flavor before preempting in current flavor. The possible values are:.

        - ``MayStopSearch``: stop the search for candidate flavors if workload fits or requires
          preemption to fit.
        - ``TryNextFlavor`` (default): try next flavor if workload requires preemption
          to fit in current flavor.

        :schema: ClusterQueueV1Beta2SpecFlavorFungibility#whenCanPreempt
        '''
        result = self._values.get("when_can_preempt")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecFlavorFungibility(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecFlavorFungibilityPreference")
class ClusterQueueV1Beta2SpecFlavorFungibilityPreference(enum.Enum):
    '''preference guides the choosing of the flavor for admission in case all candidate flavors require either preemption, borrowing, or both.

    The possible values are:

    - ``BorrowingOverPreemption`` (default): prefer to use borrowing rather than preemption
      when such a choice is possible. More technically it minimizes the borrowing distance
      in the cohort tree, and solves tie-breaks by preferring better preemption mode
      (reclaim over preemption within ClusterQueue).
    - ``PreemptionOverBorrowing``: prefer to use preemption rather than borrowing
      when such a choice is possible.  More technically it optimizes the preemption mode
      (reclaim over preemption within ClusterQueue), and solves tie-breaks by minimizing
      the borrowing distance in the cohort tree.

    :schema: ClusterQueueV1Beta2SpecFlavorFungibilityPreference
    '''

    BORROWING_OVER_PREEMPTION = "BORROWING_OVER_PREEMPTION"
    '''BorrowingOverPreemption.'''
    PREEMPTION_OVER_BORROWING = "PREEMPTION_OVER_BORROWING"
    '''PreemptionOverBorrowing.'''


@jsii.enum(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow"
)
class ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow(enum.Enum):
    '''whenCanBorrow determines whether a workload should try the next flavor before borrowing in current flavor. The possible values are:.

    - ``MayStopSearch`` (default): stop the search for candidate flavors if workload
      fits or requires borrowing to fit.
    - ``TryNextFlavor``: try next flavor if workload requires borrowing to fit.

    :schema: ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow
    '''

    MAY_STOP_SEARCH = "MAY_STOP_SEARCH"
    '''MayStopSearch.'''
    TRY_NEXT_FLAVOR = "TRY_NEXT_FLAVOR"
    '''TryNextFlavor.'''


@jsii.enum(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt"
)
class ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt(enum.Enum):
    '''whenCanPreempt determines whether a workload should try the next flavor before preempting in current flavor. The possible values are:.

    - ``MayStopSearch``: stop the search for candidate flavors if workload fits or requires
      preemption to fit.
    - ``TryNextFlavor`` (default): try next flavor if workload requires preemption
      to fit in current flavor.

    :schema: ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt
    '''

    MAY_STOP_SEARCH = "MAY_STOP_SEARCH"
    '''MayStopSearch.'''
    TRY_NEXT_FLAVOR = "TRY_NEXT_FLAVOR"
    '''TryNextFlavor.'''


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecNamespaceSelector",
    jsii_struct_bases=[],
    name_mapping={
        "match_expressions": "matchExpressions",
        "match_labels": "matchLabels",
    },
)
class ClusterQueueV1Beta2SpecNamespaceSelector:
    def __init__(
        self,
        *,
        match_expressions: typing.Optional[typing.Sequence[typing.Union["ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions", typing.Dict[builtins.str, typing.Any]]]] = None,
        match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''namespaceSelector defines which namespaces are allowed to submit workloads to this clusterQueue.

        Beyond this basic support for policy, a policy agent like
        Gatekeeper should be used to enforce more advanced policies.
        Defaults to null which is a nothing selector (no namespaces eligible).
        If set to an empty selector ``{}``, then all namespaces are eligible.

        :param match_expressions: matchExpressions is a list of label selector requirements. The requirements are ANDed.
        :param match_labels: matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is "key", the operator is "In", and the values array contains only "value". The requirements are ANDed.

        :default: null which is a nothing selector (no namespaces eligible).

        :schema: ClusterQueueV1Beta2SpecNamespaceSelector
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0dcd4ea70277e08f3ba863a1e0dc363bc1d16c28ee1efca48047ec8522cee631)
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
    ) -> typing.Optional[typing.List["ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions"]]:
        '''matchExpressions is a list of label selector requirements.

        The requirements are ANDed.

        :schema: ClusterQueueV1Beta2SpecNamespaceSelector#matchExpressions
        '''
        result = self._values.get("match_expressions")
        return typing.cast(typing.Optional[typing.List["ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions"]], result)

    @builtins.property
    def match_labels(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''matchLabels is a map of {key,value} pairs.

        A single {key,value} in the matchLabels
        map is equivalent to an element of matchExpressions, whose key field is "key", the
        operator is "In", and the values array contains only "value". The requirements are ANDed.

        :schema: ClusterQueueV1Beta2SpecNamespaceSelector#matchLabels
        '''
        result = self._values.get("match_labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecNamespaceSelector(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "operator": "operator", "values": "values"},
)
class ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions:
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

        :schema: ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__4ac4958e5547cf6b92382b9cbcd5d6da95fba870e351ada557ab0c9eacfa6fec)
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

        :schema: ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def operator(self) -> builtins.str:
        '''operator represents a key's relationship to a set of values.

        Valid operators are In, NotIn, Exists and DoesNotExist.

        :schema: ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions#operator
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

        :schema: ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions#values
        '''
        result = self._values.get("values")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecPreemption",
    jsii_struct_bases=[],
    name_mapping={
        "borrow_within_cohort": "borrowWithinCohort",
        "reclaim_within_cohort": "reclaimWithinCohort",
        "within_cluster_queue": "withinClusterQueue",
    },
)
class ClusterQueueV1Beta2SpecPreemption:
    def __init__(
        self,
        *,
        borrow_within_cohort: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort", typing.Dict[builtins.str, typing.Any]]] = None,
        reclaim_within_cohort: typing.Optional["ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort"] = None,
        within_cluster_queue: typing.Optional["ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue"] = None,
    ) -> None:
        '''preemption defines the preemption policies.

        :param borrow_within_cohort: borrowWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort if the workload requires borrowing. May only be configured with Classical Preemption, and **not** with Fair Sharing.
        :param reclaim_within_cohort: reclaimWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort that are using more than their nominal quota. The possible values are: - ``Never`` (default): do not preempt Workloads in the cohort. - ``LowerPriority``: **Classic Preemption** if the pending Workload fits within the nominal quota of its ClusterQueue, only preempt Workloads in the cohort that have lower priority than the pending Workload. **Fair Sharing** only preempt Workloads in the cohort that have lower priority than the pending Workload and that satisfy the Fair Sharing preemptionStategies. - ``Any``: **Classic Preemption** if the pending Workload fits within the nominal quota of its ClusterQueue, preempt any Workload in the cohort, irrespective of priority. **Fair Sharing** preempt Workloads in the cohort that satisfy the Fair Sharing preemptionStrategies.
        :param within_cluster_queue: withinClusterQueue determines whether a pending Workload that doesn't fit within the nominal quota for its ClusterQueue, can preempt active Workloads in the ClusterQueue. The possible values are: - ``Never`` (default): do not preempt Workloads in the ClusterQueue. - ``LowerPriority``: only preempt Workloads in the ClusterQueue that have lower priority than the pending Workload. - ``LowerOrNewerEqualPriority``: only preempt Workloads in the ClusterQueue that either have a lower priority than the pending workload or equal priority and are newer than the pending workload.

        :schema: ClusterQueueV1Beta2SpecPreemption
        '''
        if isinstance(borrow_within_cohort, dict):
            borrow_within_cohort = ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort(**borrow_within_cohort)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6d803f41b81f3910ea72cb3ba8a5cf0859fe92fe3f43d6afa94c4d6270e9822e)
            check_type(argname="argument borrow_within_cohort", value=borrow_within_cohort, expected_type=type_hints["borrow_within_cohort"])
            check_type(argname="argument reclaim_within_cohort", value=reclaim_within_cohort, expected_type=type_hints["reclaim_within_cohort"])
            check_type(argname="argument within_cluster_queue", value=within_cluster_queue, expected_type=type_hints["within_cluster_queue"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if borrow_within_cohort is not None:
            self._values["borrow_within_cohort"] = borrow_within_cohort
        if reclaim_within_cohort is not None:
            self._values["reclaim_within_cohort"] = reclaim_within_cohort
        if within_cluster_queue is not None:
            self._values["within_cluster_queue"] = within_cluster_queue

    @builtins.property
    def borrow_within_cohort(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort"]:
        '''borrowWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort if the workload requires borrowing.

        May only be configured with Classical Preemption, and **not** with Fair Sharing.

        :schema: ClusterQueueV1Beta2SpecPreemption#borrowWithinCohort
        '''
        result = self._values.get("borrow_within_cohort")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort"], result)

    @builtins.property
    def reclaim_within_cohort(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort"]:
        '''reclaimWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort that are using more than their nominal quota.

        The possible values are:

        - ``Never`` (default): do not preempt Workloads in the cohort.
        - ``LowerPriority``: **Classic Preemption** if the pending Workload
          fits within the nominal quota of its ClusterQueue, only preempt
          Workloads in the cohort that have lower priority than the pending
          Workload. **Fair Sharing** only preempt Workloads in the cohort that
          have lower priority than the pending Workload and that satisfy the
          Fair Sharing preemptionStategies.
        - ``Any``: **Classic Preemption** if the pending Workload fits within
          the nominal quota of its ClusterQueue, preempt any Workload in the
          cohort, irrespective of priority. **Fair Sharing** preempt Workloads
          in the cohort that satisfy the Fair Sharing preemptionStrategies.

        :schema: ClusterQueueV1Beta2SpecPreemption#reclaimWithinCohort
        '''
        result = self._values.get("reclaim_within_cohort")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort"], result)

    @builtins.property
    def within_cluster_queue(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue"]:
        '''withinClusterQueue determines whether a pending Workload that doesn't fit within the nominal quota for its ClusterQueue, can preempt active Workloads in the ClusterQueue.

        The possible values are:

        - ``Never`` (default): do not preempt Workloads in the ClusterQueue.
        - ``LowerPriority``: only preempt Workloads in the ClusterQueue that have
          lower priority than the pending Workload.
        - ``LowerOrNewerEqualPriority``: only preempt Workloads in the ClusterQueue that
          either have a lower priority than the pending workload or equal priority
          and are newer than the pending workload.

        :schema: ClusterQueueV1Beta2SpecPreemption#withinClusterQueue
        '''
        result = self._values.get("within_cluster_queue")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecPreemption(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort",
    jsii_struct_bases=[],
    name_mapping={
        "max_priority_threshold": "maxPriorityThreshold",
        "policy": "policy",
    },
)
class ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort:
    def __init__(
        self,
        *,
        max_priority_threshold: typing.Optional[jsii.Number] = None,
        policy: typing.Optional["ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy"] = None,
    ) -> None:
        '''borrowWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort if the workload requires borrowing.

        May only be configured with Classical Preemption, and **not** with Fair Sharing.

        :param max_priority_threshold: maxPriorityThreshold allows to restrict the set of workloads which might be preempted by a borrowing workload, to only workloads with priority less than or equal to the specified threshold priority. When the threshold is not specified, then any workload satisfying the policy can be preempted by the borrowing workload.
        :param policy: policy determines the policy for preemption to reclaim quota within cohort while borrowing. Possible values are: - ``Never`` (default): do not allow for preemption, in other ClusterQueues within the cohort, for a borrowing workload. - ``LowerPriority``: allow preemption, in other ClusterQueues within the cohort, for a borrowing workload, but only if the preempted workloads are of lower priority.

        :schema: ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a909ead9d296c52ea928427de61418220f320c80102205c233977b22135ba1d4)
            check_type(argname="argument max_priority_threshold", value=max_priority_threshold, expected_type=type_hints["max_priority_threshold"])
            check_type(argname="argument policy", value=policy, expected_type=type_hints["policy"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if max_priority_threshold is not None:
            self._values["max_priority_threshold"] = max_priority_threshold
        if policy is not None:
            self._values["policy"] = policy

    @builtins.property
    def max_priority_threshold(self) -> typing.Optional[jsii.Number]:
        '''maxPriorityThreshold allows to restrict the set of workloads which might be preempted by a borrowing workload, to only workloads with priority less than or equal to the specified threshold priority.

        When the threshold is not specified, then any workload satisfying the
        policy can be preempted by the borrowing workload.

        :schema: ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort#maxPriorityThreshold
        '''
        result = self._values.get("max_priority_threshold")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def policy(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy"]:
        '''policy determines the policy for preemption to reclaim quota within cohort while borrowing.

        Possible values are:

        - ``Never`` (default): do not allow for preemption, in other
          ClusterQueues within the cohort, for a borrowing workload.
        - ``LowerPriority``: allow preemption, in other ClusterQueues
          within the cohort, for a borrowing workload, but only if
          the preempted workloads are of lower priority.

        :schema: ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort#policy
        '''
        result = self._values.get("policy")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy"
)
class ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy(enum.Enum):
    '''policy determines the policy for preemption to reclaim quota within cohort while borrowing.

    Possible values are:

    - ``Never`` (default): do not allow for preemption, in other
      ClusterQueues within the cohort, for a borrowing workload.
    - ``LowerPriority``: allow preemption, in other ClusterQueues
      within the cohort, for a borrowing workload, but only if
      the preempted workloads are of lower priority.

    :schema: ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy
    '''

    NEVER = "NEVER"
    '''Never.'''
    LOWER_PRIORITY = "LOWER_PRIORITY"
    '''LowerPriority.'''


@jsii.enum(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort"
)
class ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort(enum.Enum):
    '''reclaimWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort that are using more than their nominal quota.

    The possible values are:

    - ``Never`` (default): do not preempt Workloads in the cohort.
    - ``LowerPriority``: **Classic Preemption** if the pending Workload
      fits within the nominal quota of its ClusterQueue, only preempt
      Workloads in the cohort that have lower priority than the pending
      Workload. **Fair Sharing** only preempt Workloads in the cohort that
      have lower priority than the pending Workload and that satisfy the
      Fair Sharing preemptionStategies.
    - ``Any``: **Classic Preemption** if the pending Workload fits within
      the nominal quota of its ClusterQueue, preempt any Workload in the
      cohort, irrespective of priority. **Fair Sharing** preempt Workloads
      in the cohort that satisfy the Fair Sharing preemptionStrategies.

    :schema: ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort
    '''

    NEVER = "NEVER"
    '''Never.'''
    LOWER_PRIORITY = "LOWER_PRIORITY"
    '''LowerPriority.'''
    ANY = "ANY"
    '''Any.'''


@jsii.enum(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue"
)
class ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue(enum.Enum):
    '''withinClusterQueue determines whether a pending Workload that doesn't fit within the nominal quota for its ClusterQueue, can preempt active Workloads in the ClusterQueue.

    The possible values are:

    - ``Never`` (default): do not preempt Workloads in the ClusterQueue.
    - ``LowerPriority``: only preempt Workloads in the ClusterQueue that have
      lower priority than the pending Workload.
    - ``LowerOrNewerEqualPriority``: only preempt Workloads in the ClusterQueue that
      either have a lower priority than the pending workload or equal priority
      and are newer than the pending workload.

    :schema: ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue
    '''

    NEVER = "NEVER"
    '''Never.'''
    LOWER_PRIORITY = "LOWER_PRIORITY"
    '''LowerPriority.'''
    LOWER_OR_NEWER_EQUAL_PRIORITY = "LOWER_OR_NEWER_EQUAL_PRIORITY"
    '''LowerOrNewerEqualPriority.'''


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecQueueingStrategy")
class ClusterQueueV1Beta2SpecQueueingStrategy(enum.Enum):
    '''queueingStrategy indicates the queueing strategy of the workloads across the queues in this ClusterQueue. Current Supported Strategies:.

    - StrictFIFO: workloads are ordered strictly by creation time.
      Older workloads that can't be admitted will block admitting newer
      workloads even if they fit available quota.
    - BestEffortFIFO: workloads are ordered by creation time,
      however older workloads that can't be admitted will not block
      admitting newer workloads that fit existing quota.

    :schema: ClusterQueueV1Beta2SpecQueueingStrategy
    '''

    STRICT_FIFO = "STRICT_FIFO"
    '''StrictFIFO.'''
    BEST_EFFORT_FIFO = "BEST_EFFORT_FIFO"
    '''BestEffortFIFO.'''


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecResourceGroups",
    jsii_struct_bases=[],
    name_mapping={"covered_resources": "coveredResources", "flavors": "flavors"},
)
class ClusterQueueV1Beta2SpecResourceGroups:
    def __init__(
        self,
        *,
        covered_resources: typing.Sequence[builtins.str],
        flavors: typing.Sequence[typing.Union["ClusterQueueV1Beta2SpecResourceGroupsFlavors", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''
        :param covered_resources: coveredResources is the list of resources covered by the flavors in this group. Examples: cpu, memory, vendor.com/gpu. The list cannot be empty and it can contain up to 64 resources. With a total of up to 256 covered resources across all resource groups in the ClusterQueue.
        :param flavors: flavors is the list of flavors that provide the resources of this group. Typically, different flavors represent different hardware models (e.g., gpu models, cpu architectures) or pricing models (on-demand vs spot cpus). Each flavor MUST list all the resources listed for this group in the same order as the .resources field. The list cannot be empty and it can contain up to 64 flavors, with a max of 256 total flavors across all resource groups in the ClusterQueue.

        :schema: ClusterQueueV1Beta2SpecResourceGroups
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ef2b4352ba58f05086e4041e3bb9b724ca09d8e92e16984892dee5d9bdb38e0e)
            check_type(argname="argument covered_resources", value=covered_resources, expected_type=type_hints["covered_resources"])
            check_type(argname="argument flavors", value=flavors, expected_type=type_hints["flavors"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "covered_resources": covered_resources,
            "flavors": flavors,
        }

    @builtins.property
    def covered_resources(self) -> typing.List[builtins.str]:
        '''coveredResources is the list of resources covered by the flavors in this group.

        Examples: cpu, memory, vendor.com/gpu.
        The list cannot be empty and it can contain up to 64 resources. With a total
        of up to 256 covered resources across all resource groups in the ClusterQueue.

        :schema: ClusterQueueV1Beta2SpecResourceGroups#coveredResources
        '''
        result = self._values.get("covered_resources")
        assert result is not None, "Required property 'covered_resources' is missing"
        return typing.cast(typing.List[builtins.str], result)

    @builtins.property
    def flavors(self) -> typing.List["ClusterQueueV1Beta2SpecResourceGroupsFlavors"]:
        '''flavors is the list of flavors that provide the resources of this group.

        Typically, different flavors represent different hardware models
        (e.g., gpu models, cpu architectures) or pricing models (on-demand vs spot
        cpus).
        Each flavor MUST list all the resources listed for this group in the same
        order as the .resources field.
        The list cannot be empty and it can contain up to 64 flavors, with a max of
        256 total flavors across all resource groups in the ClusterQueue.

        :schema: ClusterQueueV1Beta2SpecResourceGroups#flavors
        '''
        result = self._values.get("flavors")
        assert result is not None, "Required property 'flavors' is missing"
        return typing.cast(typing.List["ClusterQueueV1Beta2SpecResourceGroupsFlavors"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecResourceGroups(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecResourceGroupsFlavors",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "resources": "resources"},
)
class ClusterQueueV1Beta2SpecResourceGroupsFlavors:
    def __init__(
        self,
        *,
        name: builtins.str,
        resources: typing.Sequence[typing.Union["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''
        :param name: name of this flavor. The name should match the .metadata.name of a ResourceFlavor. If a matching ResourceFlavor does not exist, the ClusterQueue will have an Active condition set to False.
        :param resources: resources is the list of quotas for this flavor per resource. There could be up to 64 resources.

        :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavors
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9a44d9d2d44e3312305f53d501aad60a37ef96d1c0d0cae953799142e7ee7e67)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument resources", value=resources, expected_type=type_hints["resources"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
            "resources": resources,
        }

    @builtins.property
    def name(self) -> builtins.str:
        '''name of this flavor.

        The name should match the .metadata.name of a
        ResourceFlavor. If a matching ResourceFlavor does not exist, the
        ClusterQueue will have an Active condition set to False.

        :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavors#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def resources(
        self,
    ) -> typing.List["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources"]:
        '''resources is the list of quotas for this flavor per resource.

        There could be up to 64 resources.

        :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavors#resources
        '''
        result = self._values.get("resources")
        assert result is not None, "Required property 'resources' is missing"
        return typing.cast(typing.List["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecResourceGroupsFlavors(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources",
    jsii_struct_bases=[],
    name_mapping={
        "name": "name",
        "nominal_quota": "nominalQuota",
        "borrowing_limit": "borrowingLimit",
        "lending_limit": "lendingLimit",
    },
)
class ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources:
    def __init__(
        self,
        *,
        name: builtins.str,
        nominal_quota: "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota",
        borrowing_limit: typing.Optional["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit"] = None,
        lending_limit: typing.Optional["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit"] = None,
    ) -> None:
        '''
        :param name: name of this resource.
        :param nominal_quota: nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time. The nominalQuota must be non-negative. nominalQuota should represent the resources in the cluster available for running jobs (after discounting resources consumed by system components and pods not managed by kueue). In an autoscaled cluster, nominalQuota should account for resources that can be provided by a component such as Kubernetes cluster-autoscaler. If the ClusterQueue belongs to a cohort, the sum of the quotas for each (flavor, resource) combination defines the maximum quantity that can be allocated by a ClusterQueue in the cohort.
        :param borrowing_limit: borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort. In total, at a given time, Workloads in a ClusterQueue can consume a quantity of quota equal to nominalQuota+borrowingLimit, assuming the other ClusterQueues in the cohort have enough unused quota. If null, it means that there is no borrowing limit. If not null, it must be non-negative. borrowingLimit must be null if spec.cohortName is empty.
        :param lending_limit: lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort. In total, at a given time, ClusterQueue reserves for its exclusive use a quantity of quota equals to nominalQuota - lendingLimit. If null, it means that there is no lending limit, meaning that all the nominalQuota can be borrowed by other clusterQueues in the cohort. If not null, it must be non-negative. lendingLimit must be null if spec.cohortName is empty. This field is in beta stage and is enabled by default.

        :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__cf146a9aba2cd7da409eb978b5318c95908c11ca4e3f3752c967faa0413dc9d5)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument nominal_quota", value=nominal_quota, expected_type=type_hints["nominal_quota"])
            check_type(argname="argument borrowing_limit", value=borrowing_limit, expected_type=type_hints["borrowing_limit"])
            check_type(argname="argument lending_limit", value=lending_limit, expected_type=type_hints["lending_limit"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
            "nominal_quota": nominal_quota,
        }
        if borrowing_limit is not None:
            self._values["borrowing_limit"] = borrowing_limit
        if lending_limit is not None:
            self._values["lending_limit"] = lending_limit

    @builtins.property
    def name(self) -> builtins.str:
        '''name of this resource.

        :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def nominal_quota(
        self,
    ) -> "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota":
        '''nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time.

        The nominalQuota must be non-negative.
        nominalQuota should represent the resources in the cluster available for
        running jobs (after discounting resources consumed by system components
        and pods not managed by kueue). In an autoscaled cluster, nominalQuota
        should account for resources that can be provided by a component such as
        Kubernetes cluster-autoscaler.

        If the ClusterQueue belongs to a cohort, the sum of the quotas for each
        (flavor, resource) combination defines the maximum quantity that can be
        allocated by a ClusterQueue in the cohort.

        :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources#nominalQuota
        '''
        result = self._values.get("nominal_quota")
        assert result is not None, "Required property 'nominal_quota' is missing"
        return typing.cast("ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota", result)

    @builtins.property
    def borrowing_limit(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit"]:
        '''borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort.

        In total, at a given time, Workloads in a ClusterQueue can consume a
        quantity of quota equal to nominalQuota+borrowingLimit, assuming the other
        ClusterQueues in the cohort have enough unused quota.
        If null, it means that there is no borrowing limit.
        If not null, it must be non-negative.
        borrowingLimit must be null if spec.cohortName is empty.

        :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources#borrowingLimit
        '''
        result = self._values.get("borrowing_limit")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit"], result)

    @builtins.property
    def lending_limit(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit"]:
        '''lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort.

        In total, at a given time, ClusterQueue reserves for its exclusive use
        a quantity of quota equals to nominalQuota - lendingLimit.
        If null, it means that there is no lending limit, meaning that
        all the nominalQuota can be borrowed by other clusterQueues in the cohort.
        If not null, it must be non-negative.
        lendingLimit must be null if spec.cohortName is empty.
        This field is in beta stage and is enabled by default.

        :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources#lendingLimit
        '''
        result = self._values.get("lending_limit")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit",
):
    '''borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort.

    In total, at a given time, Workloads in a ClusterQueue can consume a
    quantity of quota equal to nominalQuota+borrowingLimit, assuming the other
    ClusterQueues in the cohort have enough unused quota.
    If null, it means that there is no borrowing limit.
    If not null, it must be non-negative.
    borrowingLimit must be null if spec.cohortName is empty.

    :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__74e8012f226c6b368040420a1b24039fd6784d2aa39d5ba98a59693beb39f068)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__134e861b806efa2f3a9e4ecf15c766f51671b218edff56b528a5bc54a6906ddd)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit",
):
    '''lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort.

    In total, at a given time, ClusterQueue reserves for its exclusive use
    a quantity of quota equals to nominalQuota - lendingLimit.
    If null, it means that there is no lending limit, meaning that
    all the nominalQuota can be borrowed by other clusterQueues in the cohort.
    If not null, it must be non-negative.
    lendingLimit must be null if spec.cohortName is empty.
    This field is in beta stage and is enabled by default.

    :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8e4b32bf0efd4ecf1598dfa721eb73718a8a5b359441502f554f38451819e8e5)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b410812ee819a1ebe45cef66ca618680cefc99a4d8f8e4f0b38e6da962c74b90)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota",
):
    '''nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time.

    The nominalQuota must be non-negative.
    nominalQuota should represent the resources in the cluster available for
    running jobs (after discounting resources consumed by system components
    and pods not managed by kueue). In an autoscaled cluster, nominalQuota
    should account for resources that can be provided by a component such as
    Kubernetes cluster-autoscaler.

    If the ClusterQueue belongs to a cohort, the sum of the quotas for each
    (flavor, resource) combination defines the maximum quantity that can be
    allocated by a ClusterQueue in the cohort.

    :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1680691df1904b846f74e92ace281933e728483f8a98379dbbdb45395f1cc0e3)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3e4da68c37130693489644db928eed4cb0f1c443570b8dbbc3f14db2e20a1421)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueV1Beta2SpecStopPolicy")
class ClusterQueueV1Beta2SpecStopPolicy(enum.Enum):
    '''stopPolicy - if set to a value different from None, the ClusterQueue is considered Inactive, no new reservation being made.

    Depending on its value, its associated workloads will:

    - None - Workloads are admitted
    - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation.
    - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

    :schema: ClusterQueueV1Beta2SpecStopPolicy
    '''

    NONE = "NONE"
    '''None.'''
    HOLD = "HOLD"
    '''Hold.'''
    HOLD_AND_DRAIN = "HOLD_AND_DRAIN"
    '''HoldAndDrain.'''


class LocalQueue(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.LocalQueue",
):
    '''LocalQueue is the Schema for the localQueues API.

    :schema: LocalQueue
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["LocalQueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "LocalQueue" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the LocalQueue.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0923ce3af15908b2a4a35327ca0f02a8cc64b2f7ed48b77ef35ee444ced5b2b3)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = LocalQueueProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["LocalQueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "LocalQueue".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the LocalQueue.
        '''
        props = LocalQueueProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "LocalQueue".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8skueue.LocalQueueProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class LocalQueueProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["LocalQueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''LocalQueue is the Schema for the localQueues API.

        :param metadata: 
        :param spec: spec is the specification of the LocalQueue.

        :schema: LocalQueue
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = LocalQueueSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5fdcdb0ce070970d038c3961f3dffb6ef8c152152320380eff9c87bb006ec40e)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: LocalQueue#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["LocalQueueSpec"]:
        '''spec is the specification of the LocalQueue.

        :schema: LocalQueue#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["LocalQueueSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LocalQueueProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.LocalQueueSpec",
    jsii_struct_bases=[],
    name_mapping={
        "cluster_queue": "clusterQueue",
        "fair_sharing": "fairSharing",
        "stop_policy": "stopPolicy",
    },
)
class LocalQueueSpec:
    def __init__(
        self,
        *,
        cluster_queue: typing.Optional[builtins.str] = None,
        fair_sharing: typing.Optional[typing.Union["LocalQueueSpecFairSharing", typing.Dict[builtins.str, typing.Any]]] = None,
        stop_policy: typing.Optional["LocalQueueSpecStopPolicy"] = None,
    ) -> None:
        '''spec is the specification of the LocalQueue.

        :param cluster_queue: clusterQueue is a reference to a clusterQueue that backs this localQueue.
        :param fair_sharing: fairSharing defines the properties of the LocalQueue when participating in AdmissionFairSharing. The values are only relevant if AdmissionFairSharing is enabled in the Kueue configuration.
        :param stop_policy: stopPolicy - if set to a value different from None, the LocalQueue is considered Inactive, no new reservation being made. Depending on its value, its associated workloads will: - None - Workloads are admitted - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation. - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

        :schema: LocalQueueSpec
        '''
        if isinstance(fair_sharing, dict):
            fair_sharing = LocalQueueSpecFairSharing(**fair_sharing)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__934f01d1643edf3eaa51b4838e701da14397c6a0d4ca27f92860481415c2837a)
            check_type(argname="argument cluster_queue", value=cluster_queue, expected_type=type_hints["cluster_queue"])
            check_type(argname="argument fair_sharing", value=fair_sharing, expected_type=type_hints["fair_sharing"])
            check_type(argname="argument stop_policy", value=stop_policy, expected_type=type_hints["stop_policy"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if cluster_queue is not None:
            self._values["cluster_queue"] = cluster_queue
        if fair_sharing is not None:
            self._values["fair_sharing"] = fair_sharing
        if stop_policy is not None:
            self._values["stop_policy"] = stop_policy

    @builtins.property
    def cluster_queue(self) -> typing.Optional[builtins.str]:
        '''clusterQueue is a reference to a clusterQueue that backs this localQueue.

        :schema: LocalQueueSpec#clusterQueue
        '''
        result = self._values.get("cluster_queue")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def fair_sharing(self) -> typing.Optional["LocalQueueSpecFairSharing"]:
        '''fairSharing defines the properties of the LocalQueue when participating in AdmissionFairSharing.

        The values are only relevant
        if AdmissionFairSharing is enabled in the Kueue configuration.

        :schema: LocalQueueSpec#fairSharing
        '''
        result = self._values.get("fair_sharing")
        return typing.cast(typing.Optional["LocalQueueSpecFairSharing"], result)

    @builtins.property
    def stop_policy(self) -> typing.Optional["LocalQueueSpecStopPolicy"]:
        '''stopPolicy - if set to a value different from None, the LocalQueue is considered Inactive, no new reservation being made.

        Depending on its value, its associated workloads will:

        - None - Workloads are admitted
        - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation.
        - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

        :schema: LocalQueueSpec#stopPolicy
        '''
        result = self._values.get("stop_policy")
        return typing.cast(typing.Optional["LocalQueueSpecStopPolicy"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LocalQueueSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.LocalQueueSpecFairSharing",
    jsii_struct_bases=[],
    name_mapping={"weight": "weight"},
)
class LocalQueueSpecFairSharing:
    def __init__(
        self,
        *,
        weight: typing.Optional["LocalQueueSpecFairSharingWeight"] = None,
    ) -> None:
        '''fairSharing defines the properties of the LocalQueue when participating in AdmissionFairSharing.

        The values are only relevant
        if AdmissionFairSharing is enabled in the Kueue configuration.

        :param weight: weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort. The share is based on the dominant resource usage above nominal quotas for each resource, divided by the weight. Admission prioritizes scheduling workloads from ClusterQueues and Cohorts with the lowest share and preempting workloads from the ClusterQueues and Cohorts with the highest share. A zero weight implies infinite share value, meaning that this Node will always be at disadvantage against other ClusterQueues and Cohorts. When not 0, Weight must be greater than 10^-9.

        :schema: LocalQueueSpecFairSharing
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c1694b9a7a75dde53eb659f275253ad29e263a40e8b4c3d5e6a17cdd3af273db)
            check_type(argname="argument weight", value=weight, expected_type=type_hints["weight"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if weight is not None:
            self._values["weight"] = weight

    @builtins.property
    def weight(self) -> typing.Optional["LocalQueueSpecFairSharingWeight"]:
        '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

        The share is based on the dominant resource usage
        above nominal quotas for each resource, divided by the
        weight.  Admission prioritizes scheduling workloads from
        ClusterQueues and Cohorts with the lowest share and
        preempting workloads from the ClusterQueues and Cohorts
        with the highest share.  A zero weight implies infinite
        share value, meaning that this Node will always be at
        disadvantage against other ClusterQueues and Cohorts.
        When not 0, Weight must be greater than 10^-9.

        :schema: LocalQueueSpecFairSharing#weight
        '''
        result = self._values.get("weight")
        return typing.cast(typing.Optional["LocalQueueSpecFairSharingWeight"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LocalQueueSpecFairSharing(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class LocalQueueSpecFairSharingWeight(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.LocalQueueSpecFairSharingWeight",
):
    '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

    The share is based on the dominant resource usage
    above nominal quotas for each resource, divided by the
    weight.  Admission prioritizes scheduling workloads from
    ClusterQueues and Cohorts with the lowest share and
    preempting workloads from the ClusterQueues and Cohorts
    with the highest share.  A zero weight implies infinite
    share value, meaning that this Node will always be at
    disadvantage against other ClusterQueues and Cohorts.
    When not 0, Weight must be greater than 10^-9.

    :schema: LocalQueueSpecFairSharingWeight
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "LocalQueueSpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9bac0db158ec3e7384cc2f345b1dd46e23cb2f58ebbfb275dafa6535cb6a6182)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("LocalQueueSpecFairSharingWeight", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(cls, value: builtins.str) -> "LocalQueueSpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__674ad5e9425746444da8b7f00f58afed6d8d0df521e716be7011c1e8196b5498)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("LocalQueueSpecFairSharingWeight", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.enum(jsii_type="iox-k8skueue.LocalQueueSpecStopPolicy")
class LocalQueueSpecStopPolicy(enum.Enum):
    '''stopPolicy - if set to a value different from None, the LocalQueue is considered Inactive, no new reservation being made.

    Depending on its value, its associated workloads will:

    - None - Workloads are admitted
    - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation.
    - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

    :schema: LocalQueueSpecStopPolicy
    '''

    NONE = "NONE"
    '''None.'''
    HOLD = "HOLD"
    '''Hold.'''
    HOLD_AND_DRAIN = "HOLD_AND_DRAIN"
    '''HoldAndDrain.'''


class LocalQueueV1Beta2(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.LocalQueueV1Beta2",
):
    '''LocalQueue is the Schema for the localQueues API.

    :schema: LocalQueueV1Beta2
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["LocalQueueV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "LocalQueueV1Beta2" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the LocalQueue.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__bd930ff92566b8977c690637d05733a09428a78db17a54f0e478059526ee274f)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = LocalQueueV1Beta2Props(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["LocalQueueV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "LocalQueueV1Beta2".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the LocalQueue.
        '''
        props = LocalQueueV1Beta2Props(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "LocalQueueV1Beta2".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8skueue.LocalQueueV1Beta2Props",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class LocalQueueV1Beta2Props:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["LocalQueueV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''LocalQueue is the Schema for the localQueues API.

        :param metadata: 
        :param spec: spec is the specification of the LocalQueue.

        :schema: LocalQueueV1Beta2
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = LocalQueueV1Beta2Spec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6529ea365a3995da09b194f57c7ef32a3e2db74c598829d28c083b7f4c6095cc)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: LocalQueueV1Beta2#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["LocalQueueV1Beta2Spec"]:
        '''spec is the specification of the LocalQueue.

        :schema: LocalQueueV1Beta2#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["LocalQueueV1Beta2Spec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LocalQueueV1Beta2Props(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.LocalQueueV1Beta2Spec",
    jsii_struct_bases=[],
    name_mapping={
        "cluster_queue": "clusterQueue",
        "fair_sharing": "fairSharing",
        "stop_policy": "stopPolicy",
    },
)
class LocalQueueV1Beta2Spec:
    def __init__(
        self,
        *,
        cluster_queue: typing.Optional[builtins.str] = None,
        fair_sharing: typing.Optional[typing.Union["LocalQueueV1Beta2SpecFairSharing", typing.Dict[builtins.str, typing.Any]]] = None,
        stop_policy: typing.Optional["LocalQueueV1Beta2SpecStopPolicy"] = None,
    ) -> None:
        '''spec is the specification of the LocalQueue.

        :param cluster_queue: clusterQueue is a reference to a clusterQueue that backs this localQueue.
        :param fair_sharing: fairSharing defines the properties of the LocalQueue when participating in AdmissionFairSharing. The values are only relevant if AdmissionFairSharing is enabled in the Kueue configuration.
        :param stop_policy: stopPolicy - if set to a value different from None, the LocalQueue is considered Inactive, no new reservation being made. Depending on its value, its associated workloads will: - None - Workloads are admitted - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation. - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

        :schema: LocalQueueV1Beta2Spec
        '''
        if isinstance(fair_sharing, dict):
            fair_sharing = LocalQueueV1Beta2SpecFairSharing(**fair_sharing)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9e3c68f96d2db7f9e44eee4fa0f7b9208a387f4ae25c4c9527dac5b68ba8d663)
            check_type(argname="argument cluster_queue", value=cluster_queue, expected_type=type_hints["cluster_queue"])
            check_type(argname="argument fair_sharing", value=fair_sharing, expected_type=type_hints["fair_sharing"])
            check_type(argname="argument stop_policy", value=stop_policy, expected_type=type_hints["stop_policy"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if cluster_queue is not None:
            self._values["cluster_queue"] = cluster_queue
        if fair_sharing is not None:
            self._values["fair_sharing"] = fair_sharing
        if stop_policy is not None:
            self._values["stop_policy"] = stop_policy

    @builtins.property
    def cluster_queue(self) -> typing.Optional[builtins.str]:
        '''clusterQueue is a reference to a clusterQueue that backs this localQueue.

        :schema: LocalQueueV1Beta2Spec#clusterQueue
        '''
        result = self._values.get("cluster_queue")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def fair_sharing(self) -> typing.Optional["LocalQueueV1Beta2SpecFairSharing"]:
        '''fairSharing defines the properties of the LocalQueue when participating in AdmissionFairSharing.

        The values are only relevant
        if AdmissionFairSharing is enabled in the Kueue configuration.

        :schema: LocalQueueV1Beta2Spec#fairSharing
        '''
        result = self._values.get("fair_sharing")
        return typing.cast(typing.Optional["LocalQueueV1Beta2SpecFairSharing"], result)

    @builtins.property
    def stop_policy(self) -> typing.Optional["LocalQueueV1Beta2SpecStopPolicy"]:
        '''stopPolicy - if set to a value different from None, the LocalQueue is considered Inactive, no new reservation being made.

        Depending on its value, its associated workloads will:

        - None - Workloads are admitted
        - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation.
        - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

        :schema: LocalQueueV1Beta2Spec#stopPolicy
        '''
        result = self._values.get("stop_policy")
        return typing.cast(typing.Optional["LocalQueueV1Beta2SpecStopPolicy"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LocalQueueV1Beta2Spec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.LocalQueueV1Beta2SpecFairSharing",
    jsii_struct_bases=[],
    name_mapping={"weight": "weight"},
)
class LocalQueueV1Beta2SpecFairSharing:
    def __init__(
        self,
        *,
        weight: typing.Optional["LocalQueueV1Beta2SpecFairSharingWeight"] = None,
    ) -> None:
        '''fairSharing defines the properties of the LocalQueue when participating in AdmissionFairSharing.

        The values are only relevant
        if AdmissionFairSharing is enabled in the Kueue configuration.

        :param weight: weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort. The share is based on the dominant resource usage above nominal quotas for each resource, divided by the weight. Admission prioritizes scheduling workloads from ClusterQueues and Cohorts with the lowest share and preempting workloads from the ClusterQueues and Cohorts with the highest share. A zero weight implies infinite share value, meaning that this Node will always be at disadvantage against other ClusterQueues and Cohorts. When not 0, Weight must be greater than 10^-9.

        :schema: LocalQueueV1Beta2SpecFairSharing
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3a320ac3236f3db69bc1985cb54bebefded56f5b8333b9ba72a01afd9f835178)
            check_type(argname="argument weight", value=weight, expected_type=type_hints["weight"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if weight is not None:
            self._values["weight"] = weight

    @builtins.property
    def weight(self) -> typing.Optional["LocalQueueV1Beta2SpecFairSharingWeight"]:
        '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

        The share is based on the dominant resource usage
        above nominal quotas for each resource, divided by the
        weight.  Admission prioritizes scheduling workloads from
        ClusterQueues and Cohorts with the lowest share and
        preempting workloads from the ClusterQueues and Cohorts
        with the highest share.  A zero weight implies infinite
        share value, meaning that this Node will always be at
        disadvantage against other ClusterQueues and Cohorts.
        When not 0, Weight must be greater than 10^-9.

        :schema: LocalQueueV1Beta2SpecFairSharing#weight
        '''
        result = self._values.get("weight")
        return typing.cast(typing.Optional["LocalQueueV1Beta2SpecFairSharingWeight"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LocalQueueV1Beta2SpecFairSharing(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class LocalQueueV1Beta2SpecFairSharingWeight(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.LocalQueueV1Beta2SpecFairSharingWeight",
):
    '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

    The share is based on the dominant resource usage
    above nominal quotas for each resource, divided by the
    weight.  Admission prioritizes scheduling workloads from
    ClusterQueues and Cohorts with the lowest share and
    preempting workloads from the ClusterQueues and Cohorts
    with the highest share.  A zero weight implies infinite
    share value, meaning that this Node will always be at
    disadvantage against other ClusterQueues and Cohorts.
    When not 0, Weight must be greater than 10^-9.

    :schema: LocalQueueV1Beta2SpecFairSharingWeight
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "LocalQueueV1Beta2SpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9fe0a7a156585b0702e415bed653dc90ae5423a9e5d84c21a9b061605fd2fc45)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("LocalQueueV1Beta2SpecFairSharingWeight", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "LocalQueueV1Beta2SpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__50c3355ce445a60ffe96ec6b81f3c5a66ed872940d771c1392ad08c29d31872b)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("LocalQueueV1Beta2SpecFairSharingWeight", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.enum(jsii_type="iox-k8skueue.LocalQueueV1Beta2SpecStopPolicy")
class LocalQueueV1Beta2SpecStopPolicy(enum.Enum):
    '''stopPolicy - if set to a value different from None, the LocalQueue is considered Inactive, no new reservation being made.

    Depending on its value, its associated workloads will:

    - None - Workloads are admitted
    - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation.
    - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

    :schema: LocalQueueV1Beta2SpecStopPolicy
    '''

    NONE = "NONE"
    '''None.'''
    HOLD = "HOLD"
    '''Hold.'''
    HOLD_AND_DRAIN = "HOLD_AND_DRAIN"
    '''HoldAndDrain.'''


class ResourceFlavor(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ResourceFlavor",
):
    '''ResourceFlavor is the Schema for the resourceflavors API.

    :schema: ResourceFlavor
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ResourceFlavorSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "ResourceFlavor" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the ResourceFlavor.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7ab10ef249d4e31596e8cf49ea20330cb300560c74efd8e8848e3b7161685401)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = ResourceFlavorProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ResourceFlavorSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "ResourceFlavor".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the ResourceFlavor.
        '''
        props = ResourceFlavorProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "ResourceFlavor".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8skueue.ResourceFlavorProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class ResourceFlavorProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ResourceFlavorSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ResourceFlavor is the Schema for the resourceflavors API.

        :param metadata: 
        :param spec: spec is the specification of the ResourceFlavor.

        :schema: ResourceFlavor
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = ResourceFlavorSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e080479a90b3411a5db8b388860c66293cf6ba693ddc64d77d6c8727eaf522d5)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: ResourceFlavor#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["ResourceFlavorSpec"]:
        '''spec is the specification of the ResourceFlavor.

        :schema: ResourceFlavor#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["ResourceFlavorSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ResourceFlavorSpec",
    jsii_struct_bases=[],
    name_mapping={
        "node_labels": "nodeLabels",
        "node_taints": "nodeTaints",
        "tolerations": "tolerations",
        "topology_name": "topologyName",
    },
)
class ResourceFlavorSpec:
    def __init__(
        self,
        *,
        node_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        node_taints: typing.Optional[typing.Sequence[typing.Union["ResourceFlavorSpecNodeTaints", typing.Dict[builtins.str, typing.Any]]]] = None,
        tolerations: typing.Optional[typing.Sequence[typing.Union["ResourceFlavorSpecTolerations", typing.Dict[builtins.str, typing.Any]]]] = None,
        topology_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''spec is the specification of the ResourceFlavor.

        :param node_labels: nodeLabels are labels that associate the ResourceFlavor with Nodes that have the same labels. When a Workload is admitted, its podsets can only get assigned ResourceFlavors whose nodeLabels match the nodeSelector and nodeAffinity fields. Once a ResourceFlavor is assigned to a podSet, the ResourceFlavor's nodeLabels should be injected into the pods of the Workload by the controller that integrates with the Workload object. nodeLabels can be up to 8 elements.
        :param node_taints: nodeTaints are taints that the nodes associated with this ResourceFlavor have. Workloads' podsets must have tolerations for these nodeTaints in order to get assigned this ResourceFlavor during admission. When this ResourceFlavor has also set the matching tolerations (in .spec.tolerations), then the nodeTaints are not considered during admission. Only the 'NoSchedule' and 'NoExecute' taint effects are evaluated, while 'PreferNoSchedule' is ignored. An example of a nodeTaint is cloud.provider.com/preemptible="true":NoSchedule nodeTaints can be up to 8 elements.
        :param tolerations: tolerations are extra tolerations that will be added to the pods admitted in the quota associated with this resource flavor. An example of a toleration is cloud.provider.com/preemptible="true":NoSchedule tolerations can be up to 8 elements.
        :param topology_name: topologyName indicates topology for the TAS ResourceFlavor. When specified, it enables scraping of the topology information from the nodes matching to the Resource Flavor node labels.

        :schema: ResourceFlavorSpec
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__dc0191eec00e82d98b0083067457581e58266c424ad510a77c9621ec695bdbbd)
            check_type(argname="argument node_labels", value=node_labels, expected_type=type_hints["node_labels"])
            check_type(argname="argument node_taints", value=node_taints, expected_type=type_hints["node_taints"])
            check_type(argname="argument tolerations", value=tolerations, expected_type=type_hints["tolerations"])
            check_type(argname="argument topology_name", value=topology_name, expected_type=type_hints["topology_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if node_labels is not None:
            self._values["node_labels"] = node_labels
        if node_taints is not None:
            self._values["node_taints"] = node_taints
        if tolerations is not None:
            self._values["tolerations"] = tolerations
        if topology_name is not None:
            self._values["topology_name"] = topology_name

    @builtins.property
    def node_labels(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''nodeLabels are labels that associate the ResourceFlavor with Nodes that have the same labels.

        When a Workload is admitted, its podsets can only get assigned
        ResourceFlavors whose nodeLabels match the nodeSelector and nodeAffinity
        fields.
        Once a ResourceFlavor is assigned to a podSet, the ResourceFlavor's
        nodeLabels should be injected into the pods of the Workload by the
        controller that integrates with the Workload object.

        nodeLabels can be up to 8 elements.

        :schema: ResourceFlavorSpec#nodeLabels
        '''
        result = self._values.get("node_labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def node_taints(
        self,
    ) -> typing.Optional[typing.List["ResourceFlavorSpecNodeTaints"]]:
        '''nodeTaints are taints that the nodes associated with this ResourceFlavor have.

        Workloads' podsets must have tolerations for these nodeTaints in order to
        get assigned this ResourceFlavor during admission.
        When this ResourceFlavor has also set the matching tolerations (in .spec.tolerations),
        then the nodeTaints are not considered during admission.
        Only the 'NoSchedule' and 'NoExecute' taint effects are evaluated,
        while 'PreferNoSchedule' is ignored.

        An example of a nodeTaint is
        cloud.provider.com/preemptible="true":NoSchedule

        nodeTaints can be up to 8 elements.

        :schema: ResourceFlavorSpec#nodeTaints
        '''
        result = self._values.get("node_taints")
        return typing.cast(typing.Optional[typing.List["ResourceFlavorSpecNodeTaints"]], result)

    @builtins.property
    def tolerations(
        self,
    ) -> typing.Optional[typing.List["ResourceFlavorSpecTolerations"]]:
        '''tolerations are extra tolerations that will be added to the pods admitted in the quota associated with this resource flavor.

        An example of a toleration is
        cloud.provider.com/preemptible="true":NoSchedule

        tolerations can be up to 8 elements.

        :schema: ResourceFlavorSpec#tolerations
        '''
        result = self._values.get("tolerations")
        return typing.cast(typing.Optional[typing.List["ResourceFlavorSpecTolerations"]], result)

    @builtins.property
    def topology_name(self) -> typing.Optional[builtins.str]:
        '''topologyName indicates topology for the TAS ResourceFlavor.

        When specified, it enables scraping of the topology information from the
        nodes matching to the Resource Flavor node labels.

        :schema: ResourceFlavorSpec#topologyName
        '''
        result = self._values.get("topology_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ResourceFlavorSpecNodeTaints",
    jsii_struct_bases=[],
    name_mapping={
        "effect": "effect",
        "key": "key",
        "time_added": "timeAdded",
        "value": "value",
    },
)
class ResourceFlavorSpecNodeTaints:
    def __init__(
        self,
        *,
        effect: builtins.str,
        key: builtins.str,
        time_added: typing.Optional[datetime.datetime] = None,
        value: typing.Optional[builtins.str] = None,
    ) -> None:
        '''The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.

        :param effect: Required. The effect of the taint on pods that do not tolerate the taint. Valid effects are NoSchedule, PreferNoSchedule and NoExecute.
        :param key: Required. The taint key to be applied to a node.
        :param time_added: TimeAdded represents the time at which the taint was added.
        :param value: The taint value corresponding to the taint key.

        :schema: ResourceFlavorSpecNodeTaints
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__000c88a6fb1ba89d4adf6130802a833f6a8144e61a959bdc9f2e8f4ee408f650)
            check_type(argname="argument effect", value=effect, expected_type=type_hints["effect"])
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument time_added", value=time_added, expected_type=type_hints["time_added"])
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "effect": effect,
            "key": key,
        }
        if time_added is not None:
            self._values["time_added"] = time_added
        if value is not None:
            self._values["value"] = value

    @builtins.property
    def effect(self) -> builtins.str:
        '''Required.

        The effect of the taint on pods
        that do not tolerate the taint.
        Valid effects are NoSchedule, PreferNoSchedule and NoExecute.

        :schema: ResourceFlavorSpecNodeTaints#effect
        '''
        result = self._values.get("effect")
        assert result is not None, "Required property 'effect' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def key(self) -> builtins.str:
        '''Required.

        The taint key to be applied to a node.

        :schema: ResourceFlavorSpecNodeTaints#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def time_added(self) -> typing.Optional[datetime.datetime]:
        '''TimeAdded represents the time at which the taint was added.

        :schema: ResourceFlavorSpecNodeTaints#timeAdded
        '''
        result = self._values.get("time_added")
        return typing.cast(typing.Optional[datetime.datetime], result)

    @builtins.property
    def value(self) -> typing.Optional[builtins.str]:
        '''The taint value corresponding to the taint key.

        :schema: ResourceFlavorSpecNodeTaints#value
        '''
        result = self._values.get("value")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorSpecNodeTaints(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ResourceFlavorSpecTolerations",
    jsii_struct_bases=[],
    name_mapping={
        "effect": "effect",
        "key": "key",
        "operator": "operator",
        "toleration_seconds": "tolerationSeconds",
        "value": "value",
    },
)
class ResourceFlavorSpecTolerations:
    def __init__(
        self,
        *,
        effect: typing.Optional[builtins.str] = None,
        key: typing.Optional[builtins.str] = None,
        operator: typing.Optional[builtins.str] = None,
        toleration_seconds: typing.Optional[jsii.Number] = None,
        value: typing.Optional[builtins.str] = None,
    ) -> None:
        '''The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect> using the matching operator .

        :param effect: Effect indicates the taint effect to match. Empty means match all taint effects. When specified, allowed values are NoSchedule, PreferNoSchedule and NoExecute.
        :param key: Key is the taint key that the toleration applies to. Empty means match all taint keys. If the key is empty, operator must be Exists; this combination means to match all values and all keys.
        :param operator: Operator represents a key's relationship to the value. Valid operators are Exists, Equal, Lt, and Gt. Defaults to Equal. Exists is equivalent to wildcard for value, so that a pod can tolerate all taints of a particular category. Lt and Gt perform numeric comparisons (requires feature gate TaintTolerationComparisonOperators). Default: Equal.
        :param toleration_seconds: TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute, otherwise this field is ignored) tolerates the taint. By default, it is not set, which means tolerate the taint forever (do not evict). Zero and negative values will be treated as 0 (evict immediately) by the system.
        :param value: Value is the taint value the toleration matches to. If the operator is Exists, the value should be empty, otherwise just a regular string.

        :schema: ResourceFlavorSpecTolerations
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__20a69c7c90d7c925261688d500272140a4baadb8a40fa76647b429f35766bc37)
            check_type(argname="argument effect", value=effect, expected_type=type_hints["effect"])
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument operator", value=operator, expected_type=type_hints["operator"])
            check_type(argname="argument toleration_seconds", value=toleration_seconds, expected_type=type_hints["toleration_seconds"])
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if effect is not None:
            self._values["effect"] = effect
        if key is not None:
            self._values["key"] = key
        if operator is not None:
            self._values["operator"] = operator
        if toleration_seconds is not None:
            self._values["toleration_seconds"] = toleration_seconds
        if value is not None:
            self._values["value"] = value

    @builtins.property
    def effect(self) -> typing.Optional[builtins.str]:
        '''Effect indicates the taint effect to match.

        Empty means match all taint effects.
        When specified, allowed values are NoSchedule, PreferNoSchedule and NoExecute.

        :schema: ResourceFlavorSpecTolerations#effect
        '''
        result = self._values.get("effect")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def key(self) -> typing.Optional[builtins.str]:
        '''Key is the taint key that the toleration applies to.

        Empty means match all taint keys.
        If the key is empty, operator must be Exists; this combination means to match all values and all keys.

        :schema: ResourceFlavorSpecTolerations#key
        '''
        result = self._values.get("key")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def operator(self) -> typing.Optional[builtins.str]:
        '''Operator represents a key's relationship to the value.

        Valid operators are Exists, Equal, Lt, and Gt. Defaults to Equal.
        Exists is equivalent to wildcard for value, so that a pod can
        tolerate all taints of a particular category.
        Lt and Gt perform numeric comparisons (requires feature gate TaintTolerationComparisonOperators).

        :default: Equal.

        :schema: ResourceFlavorSpecTolerations#operator
        '''
        result = self._values.get("operator")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def toleration_seconds(self) -> typing.Optional[jsii.Number]:
        '''TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute, otherwise this field is ignored) tolerates the taint.

        By default,
        it is not set, which means tolerate the taint forever (do not evict). Zero and
        negative values will be treated as 0 (evict immediately) by the system.

        :schema: ResourceFlavorSpecTolerations#tolerationSeconds
        '''
        result = self._values.get("toleration_seconds")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def value(self) -> typing.Optional[builtins.str]:
        '''Value is the taint value the toleration matches to.

        If the operator is Exists, the value should be empty, otherwise just a regular string.

        :schema: ResourceFlavorSpecTolerations#value
        '''
        result = self._values.get("value")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorSpecTolerations(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ResourceFlavorV1Beta2(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ResourceFlavorV1Beta2",
):
    '''ResourceFlavor is the Schema for the resourceflavors API.

    :schema: ResourceFlavorV1Beta2
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ResourceFlavorV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "ResourceFlavorV1Beta2" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the ResourceFlavor.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5c8514b3eb86972f2e25962cd2e841086f0b3c564e1fadb2112c4baad494c4b9)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = ResourceFlavorV1Beta2Props(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ResourceFlavorV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "ResourceFlavorV1Beta2".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the ResourceFlavor.
        '''
        props = ResourceFlavorV1Beta2Props(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "ResourceFlavorV1Beta2".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8skueue.ResourceFlavorV1Beta2Props",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class ResourceFlavorV1Beta2Props:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ResourceFlavorV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ResourceFlavor is the Schema for the resourceflavors API.

        :param metadata: 
        :param spec: spec is the specification of the ResourceFlavor.

        :schema: ResourceFlavorV1Beta2
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = ResourceFlavorV1Beta2Spec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c340f83c2618c02c309ac7aacdfc6aa89dedc9767df6f81ccbfdcc312a5cbc6c)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: ResourceFlavorV1Beta2#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["ResourceFlavorV1Beta2Spec"]:
        '''spec is the specification of the ResourceFlavor.

        :schema: ResourceFlavorV1Beta2#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["ResourceFlavorV1Beta2Spec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorV1Beta2Props(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ResourceFlavorV1Beta2Spec",
    jsii_struct_bases=[],
    name_mapping={
        "node_labels": "nodeLabels",
        "node_taints": "nodeTaints",
        "tolerations": "tolerations",
        "topology_name": "topologyName",
    },
)
class ResourceFlavorV1Beta2Spec:
    def __init__(
        self,
        *,
        node_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        node_taints: typing.Optional[typing.Sequence[typing.Union["ResourceFlavorV1Beta2SpecNodeTaints", typing.Dict[builtins.str, typing.Any]]]] = None,
        tolerations: typing.Optional[typing.Sequence[typing.Union["ResourceFlavorV1Beta2SpecTolerations", typing.Dict[builtins.str, typing.Any]]]] = None,
        topology_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''spec is the specification of the ResourceFlavor.

        :param node_labels: nodeLabels are labels that associate the ResourceFlavor with Nodes that have the same labels. When a Workload is admitted, its podsets can only get assigned ResourceFlavors whose nodeLabels match the nodeSelector and nodeAffinity fields. Once a ResourceFlavor is assigned to a podSet, the ResourceFlavor's nodeLabels should be injected into the pods of the Workload by the controller that integrates with the Workload object. nodeLabels can be up to 8 elements.
        :param node_taints: nodeTaints are taints that the nodes associated with this ResourceFlavor have. Workloads' podsets must have tolerations for these nodeTaints in order to get assigned this ResourceFlavor during admission. When this ResourceFlavor has also set the matching tolerations (in .spec.tolerations), then the nodeTaints are not considered during admission. Only the 'NoSchedule' and 'NoExecute' taint effects are evaluated, while 'PreferNoSchedule' is ignored. An example of a nodeTaint is cloud.provider.com/preemptible="true":NoSchedule nodeTaints can be up to 8 elements.
        :param tolerations: tolerations are extra tolerations that will be added to the pods admitted in the quota associated with this resource flavor. An example of a toleration is cloud.provider.com/preemptible="true":NoSchedule tolerations can be up to 8 elements.
        :param topology_name: topologyName indicates topology for the TAS ResourceFlavor. When specified, it enables scraping of the topology information from the nodes matching to the Resource Flavor node labels.

        :schema: ResourceFlavorV1Beta2Spec
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8c387f7818a2bbbd6bf2197b8c5c6e5594d91072aa79e9b5a376c1332a6a381a)
            check_type(argname="argument node_labels", value=node_labels, expected_type=type_hints["node_labels"])
            check_type(argname="argument node_taints", value=node_taints, expected_type=type_hints["node_taints"])
            check_type(argname="argument tolerations", value=tolerations, expected_type=type_hints["tolerations"])
            check_type(argname="argument topology_name", value=topology_name, expected_type=type_hints["topology_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if node_labels is not None:
            self._values["node_labels"] = node_labels
        if node_taints is not None:
            self._values["node_taints"] = node_taints
        if tolerations is not None:
            self._values["tolerations"] = tolerations
        if topology_name is not None:
            self._values["topology_name"] = topology_name

    @builtins.property
    def node_labels(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''nodeLabels are labels that associate the ResourceFlavor with Nodes that have the same labels.

        When a Workload is admitted, its podsets can only get assigned
        ResourceFlavors whose nodeLabels match the nodeSelector and nodeAffinity
        fields.
        Once a ResourceFlavor is assigned to a podSet, the ResourceFlavor's
        nodeLabels should be injected into the pods of the Workload by the
        controller that integrates with the Workload object.

        nodeLabels can be up to 8 elements.

        :schema: ResourceFlavorV1Beta2Spec#nodeLabels
        '''
        result = self._values.get("node_labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def node_taints(
        self,
    ) -> typing.Optional[typing.List["ResourceFlavorV1Beta2SpecNodeTaints"]]:
        '''nodeTaints are taints that the nodes associated with this ResourceFlavor have.

        Workloads' podsets must have tolerations for these nodeTaints in order to
        get assigned this ResourceFlavor during admission.
        When this ResourceFlavor has also set the matching tolerations (in .spec.tolerations),
        then the nodeTaints are not considered during admission.
        Only the 'NoSchedule' and 'NoExecute' taint effects are evaluated,
        while 'PreferNoSchedule' is ignored.

        An example of a nodeTaint is
        cloud.provider.com/preemptible="true":NoSchedule

        nodeTaints can be up to 8 elements.

        :schema: ResourceFlavorV1Beta2Spec#nodeTaints
        '''
        result = self._values.get("node_taints")
        return typing.cast(typing.Optional[typing.List["ResourceFlavorV1Beta2SpecNodeTaints"]], result)

    @builtins.property
    def tolerations(
        self,
    ) -> typing.Optional[typing.List["ResourceFlavorV1Beta2SpecTolerations"]]:
        '''tolerations are extra tolerations that will be added to the pods admitted in the quota associated with this resource flavor.

        An example of a toleration is
        cloud.provider.com/preemptible="true":NoSchedule

        tolerations can be up to 8 elements.

        :schema: ResourceFlavorV1Beta2Spec#tolerations
        '''
        result = self._values.get("tolerations")
        return typing.cast(typing.Optional[typing.List["ResourceFlavorV1Beta2SpecTolerations"]], result)

    @builtins.property
    def topology_name(self) -> typing.Optional[builtins.str]:
        '''topologyName indicates topology for the TAS ResourceFlavor.

        When specified, it enables scraping of the topology information from the
        nodes matching to the Resource Flavor node labels.

        :schema: ResourceFlavorV1Beta2Spec#topologyName
        '''
        result = self._values.get("topology_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorV1Beta2Spec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ResourceFlavorV1Beta2SpecNodeTaints",
    jsii_struct_bases=[],
    name_mapping={
        "effect": "effect",
        "key": "key",
        "time_added": "timeAdded",
        "value": "value",
    },
)
class ResourceFlavorV1Beta2SpecNodeTaints:
    def __init__(
        self,
        *,
        effect: builtins.str,
        key: builtins.str,
        time_added: typing.Optional[datetime.datetime] = None,
        value: typing.Optional[builtins.str] = None,
    ) -> None:
        '''The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.

        :param effect: Required. The effect of the taint on pods that do not tolerate the taint. Valid effects are NoSchedule, PreferNoSchedule and NoExecute.
        :param key: Required. The taint key to be applied to a node.
        :param time_added: TimeAdded represents the time at which the taint was added.
        :param value: The taint value corresponding to the taint key.

        :schema: ResourceFlavorV1Beta2SpecNodeTaints
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a58ed25fb6cb4aa554009361acff5bc5f30087144f9bccb3ab846c1f958287e1)
            check_type(argname="argument effect", value=effect, expected_type=type_hints["effect"])
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument time_added", value=time_added, expected_type=type_hints["time_added"])
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "effect": effect,
            "key": key,
        }
        if time_added is not None:
            self._values["time_added"] = time_added
        if value is not None:
            self._values["value"] = value

    @builtins.property
    def effect(self) -> builtins.str:
        '''Required.

        The effect of the taint on pods
        that do not tolerate the taint.
        Valid effects are NoSchedule, PreferNoSchedule and NoExecute.

        :schema: ResourceFlavorV1Beta2SpecNodeTaints#effect
        '''
        result = self._values.get("effect")
        assert result is not None, "Required property 'effect' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def key(self) -> builtins.str:
        '''Required.

        The taint key to be applied to a node.

        :schema: ResourceFlavorV1Beta2SpecNodeTaints#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def time_added(self) -> typing.Optional[datetime.datetime]:
        '''TimeAdded represents the time at which the taint was added.

        :schema: ResourceFlavorV1Beta2SpecNodeTaints#timeAdded
        '''
        result = self._values.get("time_added")
        return typing.cast(typing.Optional[datetime.datetime], result)

    @builtins.property
    def value(self) -> typing.Optional[builtins.str]:
        '''The taint value corresponding to the taint key.

        :schema: ResourceFlavorV1Beta2SpecNodeTaints#value
        '''
        result = self._values.get("value")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorV1Beta2SpecNodeTaints(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ResourceFlavorV1Beta2SpecTolerations",
    jsii_struct_bases=[],
    name_mapping={
        "effect": "effect",
        "key": "key",
        "operator": "operator",
        "toleration_seconds": "tolerationSeconds",
        "value": "value",
    },
)
class ResourceFlavorV1Beta2SpecTolerations:
    def __init__(
        self,
        *,
        effect: typing.Optional[builtins.str] = None,
        key: typing.Optional[builtins.str] = None,
        operator: typing.Optional[builtins.str] = None,
        toleration_seconds: typing.Optional[jsii.Number] = None,
        value: typing.Optional[builtins.str] = None,
    ) -> None:
        '''The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect> using the matching operator .

        :param effect: Effect indicates the taint effect to match. Empty means match all taint effects. When specified, allowed values are NoSchedule, PreferNoSchedule and NoExecute.
        :param key: Key is the taint key that the toleration applies to. Empty means match all taint keys. If the key is empty, operator must be Exists; this combination means to match all values and all keys.
        :param operator: Operator represents a key's relationship to the value. Valid operators are Exists, Equal, Lt, and Gt. Defaults to Equal. Exists is equivalent to wildcard for value, so that a pod can tolerate all taints of a particular category. Lt and Gt perform numeric comparisons (requires feature gate TaintTolerationComparisonOperators). Default: Equal.
        :param toleration_seconds: TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute, otherwise this field is ignored) tolerates the taint. By default, it is not set, which means tolerate the taint forever (do not evict). Zero and negative values will be treated as 0 (evict immediately) by the system.
        :param value: Value is the taint value the toleration matches to. If the operator is Exists, the value should be empty, otherwise just a regular string.

        :schema: ResourceFlavorV1Beta2SpecTolerations
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__625b22af10f48194906a3b8c00785255950ccfbcc5d5469cbb3bcea331e08339)
            check_type(argname="argument effect", value=effect, expected_type=type_hints["effect"])
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument operator", value=operator, expected_type=type_hints["operator"])
            check_type(argname="argument toleration_seconds", value=toleration_seconds, expected_type=type_hints["toleration_seconds"])
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if effect is not None:
            self._values["effect"] = effect
        if key is not None:
            self._values["key"] = key
        if operator is not None:
            self._values["operator"] = operator
        if toleration_seconds is not None:
            self._values["toleration_seconds"] = toleration_seconds
        if value is not None:
            self._values["value"] = value

    @builtins.property
    def effect(self) -> typing.Optional[builtins.str]:
        '''Effect indicates the taint effect to match.

        Empty means match all taint effects.
        When specified, allowed values are NoSchedule, PreferNoSchedule and NoExecute.

        :schema: ResourceFlavorV1Beta2SpecTolerations#effect
        '''
        result = self._values.get("effect")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def key(self) -> typing.Optional[builtins.str]:
        '''Key is the taint key that the toleration applies to.

        Empty means match all taint keys.
        If the key is empty, operator must be Exists; this combination means to match all values and all keys.

        :schema: ResourceFlavorV1Beta2SpecTolerations#key
        '''
        result = self._values.get("key")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def operator(self) -> typing.Optional[builtins.str]:
        '''Operator represents a key's relationship to the value.

        Valid operators are Exists, Equal, Lt, and Gt. Defaults to Equal.
        Exists is equivalent to wildcard for value, so that a pod can
        tolerate all taints of a particular category.
        Lt and Gt perform numeric comparisons (requires feature gate TaintTolerationComparisonOperators).

        :default: Equal.

        :schema: ResourceFlavorV1Beta2SpecTolerations#operator
        '''
        result = self._values.get("operator")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def toleration_seconds(self) -> typing.Optional[jsii.Number]:
        '''TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute, otherwise this field is ignored) tolerates the taint.

        By default,
        it is not set, which means tolerate the taint forever (do not evict). Zero and
        negative values will be treated as 0 (evict immediately) by the system.

        :schema: ResourceFlavorV1Beta2SpecTolerations#tolerationSeconds
        '''
        result = self._values.get("toleration_seconds")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def value(self) -> typing.Optional[builtins.str]:
        '''Value is the taint value the toleration matches to.

        If the operator is Exists, the value should be empty, otherwise just a regular string.

        :schema: ResourceFlavorV1Beta2SpecTolerations#value
        '''
        result = self._values.get("value")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorV1Beta2SpecTolerations(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class Topology(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.Topology",
):
    '''Topology is the Schema for the topology API.

    :schema: Topology
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["TopologySpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "Topology" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the Topology.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7175d040b9170f292bc5d0ac5b6b150c0453adb4f1f09e2e7974aa928149fb64)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = TopologyProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["TopologySpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "Topology".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the Topology.
        '''
        props = TopologyProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "Topology".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8skueue.TopologyProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class TopologyProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["TopologySpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Topology is the Schema for the topology API.

        :param metadata: 
        :param spec: spec is the specification of the Topology.

        :schema: Topology
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = TopologySpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__28a1bfb4d754e0abcfc72132d4ba9915b7c8c545d37a061f1efb49b70506a278)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: Topology#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["TopologySpec"]:
        '''spec is the specification of the Topology.

        :schema: Topology#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["TopologySpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TopologyProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.TopologySpec",
    jsii_struct_bases=[],
    name_mapping={"levels": "levels"},
)
class TopologySpec:
    def __init__(
        self,
        *,
        levels: typing.Sequence[typing.Union["TopologySpecLevels", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''spec is the specification of the Topology.

        :param levels: levels define the levels of topology.

        :schema: TopologySpec
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d22a8d7012063bddb9f86012ea763056b87e0431677ed3e69b3818dd9f73b00e)
            check_type(argname="argument levels", value=levels, expected_type=type_hints["levels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "levels": levels,
        }

    @builtins.property
    def levels(self) -> typing.List["TopologySpecLevels"]:
        '''levels define the levels of topology.

        :schema: TopologySpec#levels
        '''
        result = self._values.get("levels")
        assert result is not None, "Required property 'levels' is missing"
        return typing.cast(typing.List["TopologySpecLevels"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TopologySpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.TopologySpecLevels",
    jsii_struct_bases=[],
    name_mapping={"node_label": "nodeLabel"},
)
class TopologySpecLevels:
    def __init__(self, *, node_label: builtins.str) -> None:
        '''TopologyLevel defines the desired state of TopologyLevel.

        :param node_label: nodeLabel indicates the name of the node label for a specific topology level. Examples: - cloud.provider.com/topology-block - cloud.provider.com/topology-rack

        :schema: TopologySpecLevels
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__345551ae9b762c0b23b2a834bf0bd13f240c5d6e64c3d518e2eb8297524c26e8)
            check_type(argname="argument node_label", value=node_label, expected_type=type_hints["node_label"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "node_label": node_label,
        }

    @builtins.property
    def node_label(self) -> builtins.str:
        '''nodeLabel indicates the name of the node label for a specific topology level.

        Examples:

        - cloud.provider.com/topology-block
        - cloud.provider.com/topology-rack

        :schema: TopologySpecLevels#nodeLabel
        '''
        result = self._values.get("node_label")
        assert result is not None, "Required property 'node_label' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TopologySpecLevels(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class TopologyV1Beta2(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.TopologyV1Beta2",
):
    '''Topology is the Schema for the topology API.

    :schema: TopologyV1Beta2
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["TopologyV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "TopologyV1Beta2" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the Topology.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__51edf8831cd0a6ee21ec8e0868baabc0ad8f33f00c9e1b80cd0fa6de47e99317)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = TopologyV1Beta2Props(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["TopologyV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "TopologyV1Beta2".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the Topology.
        '''
        props = TopologyV1Beta2Props(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "TopologyV1Beta2".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8skueue.TopologyV1Beta2Props",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class TopologyV1Beta2Props:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["TopologyV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Topology is the Schema for the topology API.

        :param metadata: 
        :param spec: spec is the specification of the Topology.

        :schema: TopologyV1Beta2
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = TopologyV1Beta2Spec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__df8cfe426bac1bfe3006546b795877505e5c0cf89e334386539c17d93e181785)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: TopologyV1Beta2#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["TopologyV1Beta2Spec"]:
        '''spec is the specification of the Topology.

        :schema: TopologyV1Beta2#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["TopologyV1Beta2Spec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TopologyV1Beta2Props(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.TopologyV1Beta2Spec",
    jsii_struct_bases=[],
    name_mapping={"levels": "levels"},
)
class TopologyV1Beta2Spec:
    def __init__(
        self,
        *,
        levels: typing.Sequence[typing.Union["TopologyV1Beta2SpecLevels", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''spec is the specification of the Topology.

        :param levels: levels define the levels of topology.

        :schema: TopologyV1Beta2Spec
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1f7ffd865a2925a46416be5deb1734ef0d1bdd1fc7d970f7c673afb0f4d3d6bc)
            check_type(argname="argument levels", value=levels, expected_type=type_hints["levels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "levels": levels,
        }

    @builtins.property
    def levels(self) -> typing.List["TopologyV1Beta2SpecLevels"]:
        '''levels define the levels of topology.

        :schema: TopologyV1Beta2Spec#levels
        '''
        result = self._values.get("levels")
        assert result is not None, "Required property 'levels' is missing"
        return typing.cast(typing.List["TopologyV1Beta2SpecLevels"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TopologyV1Beta2Spec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.TopologyV1Beta2SpecLevels",
    jsii_struct_bases=[],
    name_mapping={"node_label": "nodeLabel"},
)
class TopologyV1Beta2SpecLevels:
    def __init__(self, *, node_label: builtins.str) -> None:
        '''TopologyLevel defines the desired state of TopologyLevel.

        :param node_label: nodeLabel indicates the name of the node label for a specific topology level. Examples: - cloud.provider.com/topology-block - cloud.provider.com/topology-rack

        :schema: TopologyV1Beta2SpecLevels
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b200db9d5acd139fd54db2c5b1896c0c5e880d98bf653129407ecec8fd109e51)
            check_type(argname="argument node_label", value=node_label, expected_type=type_hints["node_label"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "node_label": node_label,
        }

    @builtins.property
    def node_label(self) -> builtins.str:
        '''nodeLabel indicates the name of the node label for a specific topology level.

        Examples:

        - cloud.provider.com/topology-block
        - cloud.provider.com/topology-rack

        :schema: TopologyV1Beta2SpecLevels#nodeLabel
        '''
        result = self._values.get("node_label")
        assert result is not None, "Required property 'node_label' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TopologyV1Beta2SpecLevels(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class WorkloadPriorityClass(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.WorkloadPriorityClass",
):
    '''WorkloadPriorityClass is the Schema for the workloadPriorityClass API.

    :schema: WorkloadPriorityClass
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        value: jsii.Number,
        description: typing.Optional[builtins.str] = None,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "WorkloadPriorityClass" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param value: value represents the integer value of this workloadPriorityClass. This is the actual priority that workloads receive when jobs have the name of this class in their workloadPriorityClass label. Changing the value of workloadPriorityClass doesn't affect the priority of workloads that were already created.
        :param description: description is an arbitrary string that usually provides guidelines on when this workloadPriorityClass should be used.
        :param metadata: 
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ae72d8f2b1c7b67be9671392813471265f0a96c4522a614ad3c09349340bcb8a)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = WorkloadPriorityClassProps(
            value=value, description=description, metadata=metadata
        )

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        value: jsii.Number,
        description: typing.Optional[builtins.str] = None,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "WorkloadPriorityClass".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param value: value represents the integer value of this workloadPriorityClass. This is the actual priority that workloads receive when jobs have the name of this class in their workloadPriorityClass label. Changing the value of workloadPriorityClass doesn't affect the priority of workloads that were already created.
        :param description: description is an arbitrary string that usually provides guidelines on when this workloadPriorityClass should be used.
        :param metadata: 
        '''
        props = WorkloadPriorityClassProps(
            value=value, description=description, metadata=metadata
        )

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "WorkloadPriorityClass".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8skueue.WorkloadPriorityClassProps",
    jsii_struct_bases=[],
    name_mapping={
        "value": "value",
        "description": "description",
        "metadata": "metadata",
    },
)
class WorkloadPriorityClassProps:
    def __init__(
        self,
        *,
        value: jsii.Number,
        description: typing.Optional[builtins.str] = None,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''WorkloadPriorityClass is the Schema for the workloadPriorityClass API.

        :param value: value represents the integer value of this workloadPriorityClass. This is the actual priority that workloads receive when jobs have the name of this class in their workloadPriorityClass label. Changing the value of workloadPriorityClass doesn't affect the priority of workloads that were already created.
        :param description: description is an arbitrary string that usually provides guidelines on when this workloadPriorityClass should be used.
        :param metadata: 

        :schema: WorkloadPriorityClass
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ff8538e4383b42fabd60e47cf637b0811fde79e5861be1b64ca627cf3b5f688d)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
            check_type(argname="argument description", value=description, expected_type=type_hints["description"])
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "value": value,
        }
        if description is not None:
            self._values["description"] = description
        if metadata is not None:
            self._values["metadata"] = metadata

    @builtins.property
    def value(self) -> jsii.Number:
        '''value represents the integer value of this workloadPriorityClass.

        This is the actual priority that workloads
        receive when jobs have the name of this class in their workloadPriorityClass label.
        Changing the value of workloadPriorityClass doesn't affect the priority of workloads that were already created.

        :schema: WorkloadPriorityClass#value
        '''
        result = self._values.get("value")
        assert result is not None, "Required property 'value' is missing"
        return typing.cast(jsii.Number, result)

    @builtins.property
    def description(self) -> typing.Optional[builtins.str]:
        '''description is an arbitrary string that usually provides guidelines on when this workloadPriorityClass should be used.

        :schema: WorkloadPriorityClass#description
        '''
        result = self._values.get("description")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: WorkloadPriorityClass#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "WorkloadPriorityClassProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class WorkloadPriorityClassV1Beta2(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.WorkloadPriorityClassV1Beta2",
):
    '''WorkloadPriorityClass is the Schema for the workloadPriorityClass API.

    :schema: WorkloadPriorityClassV1Beta2
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        value: jsii.Number,
        description: typing.Optional[builtins.str] = None,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "WorkloadPriorityClassV1Beta2" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param value: value represents the integer value of this workloadPriorityClass. This is the actual priority that workloads receive when jobs have the name of this class in their workloadPriorityClass label. Changing the value of workloadPriorityClass doesn't affect the priority of workloads that were already created.
        :param description: description is an arbitrary string that usually provides guidelines on when this workloadPriorityClass should be used. The description is limited to a maximum of 2048 characters.
        :param metadata: 
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ccbaa99692f9fe1abe803f4288f85ce67584d1236f81e036ad8f0360a2dfdfe8)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = WorkloadPriorityClassV1Beta2Props(
            value=value, description=description, metadata=metadata
        )

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        value: jsii.Number,
        description: typing.Optional[builtins.str] = None,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "WorkloadPriorityClassV1Beta2".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param value: value represents the integer value of this workloadPriorityClass. This is the actual priority that workloads receive when jobs have the name of this class in their workloadPriorityClass label. Changing the value of workloadPriorityClass doesn't affect the priority of workloads that were already created.
        :param description: description is an arbitrary string that usually provides guidelines on when this workloadPriorityClass should be used. The description is limited to a maximum of 2048 characters.
        :param metadata: 
        '''
        props = WorkloadPriorityClassV1Beta2Props(
            value=value, description=description, metadata=metadata
        )

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "WorkloadPriorityClassV1Beta2".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8skueue.WorkloadPriorityClassV1Beta2Props",
    jsii_struct_bases=[],
    name_mapping={
        "value": "value",
        "description": "description",
        "metadata": "metadata",
    },
)
class WorkloadPriorityClassV1Beta2Props:
    def __init__(
        self,
        *,
        value: jsii.Number,
        description: typing.Optional[builtins.str] = None,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''WorkloadPriorityClass is the Schema for the workloadPriorityClass API.

        :param value: value represents the integer value of this workloadPriorityClass. This is the actual priority that workloads receive when jobs have the name of this class in their workloadPriorityClass label. Changing the value of workloadPriorityClass doesn't affect the priority of workloads that were already created.
        :param description: description is an arbitrary string that usually provides guidelines on when this workloadPriorityClass should be used. The description is limited to a maximum of 2048 characters.
        :param metadata: 

        :schema: WorkloadPriorityClassV1Beta2
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ac448f47eac1e51a5259adb6e79024b5505e23642ac410c0675b92006b08e3ee)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
            check_type(argname="argument description", value=description, expected_type=type_hints["description"])
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "value": value,
        }
        if description is not None:
            self._values["description"] = description
        if metadata is not None:
            self._values["metadata"] = metadata

    @builtins.property
    def value(self) -> jsii.Number:
        '''value represents the integer value of this workloadPriorityClass.

        This is the actual priority that workloads
        receive when jobs have the name of this class in their workloadPriorityClass label.
        Changing the value of workloadPriorityClass doesn't affect the priority of workloads that were already created.

        :schema: WorkloadPriorityClassV1Beta2#value
        '''
        result = self._values.get("value")
        assert result is not None, "Required property 'value' is missing"
        return typing.cast(jsii.Number, result)

    @builtins.property
    def description(self) -> typing.Optional[builtins.str]:
        '''description is an arbitrary string that usually provides guidelines on when this workloadPriorityClass should be used.

        The description is limited to a maximum of 2048 characters.

        :schema: WorkloadPriorityClassV1Beta2#description
        '''
        result = self._values.get("description")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: WorkloadPriorityClassV1Beta2#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "WorkloadPriorityClassV1Beta2Props(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


__all__ = [
    "ClusterQueue",
    "ClusterQueueProps",
    "ClusterQueueSpec",
    "ClusterQueueSpecAdmissionChecksStrategy",
    "ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks",
    "ClusterQueueSpecAdmissionScope",
    "ClusterQueueSpecFairSharing",
    "ClusterQueueSpecFairSharingWeight",
    "ClusterQueueSpecFlavorFungibility",
    "ClusterQueueSpecFlavorFungibilityPreference",
    "ClusterQueueSpecFlavorFungibilityWhenCanBorrow",
    "ClusterQueueSpecFlavorFungibilityWhenCanPreempt",
    "ClusterQueueSpecNamespaceSelector",
    "ClusterQueueSpecNamespaceSelectorMatchExpressions",
    "ClusterQueueSpecPreemption",
    "ClusterQueueSpecPreemptionBorrowWithinCohort",
    "ClusterQueueSpecPreemptionBorrowWithinCohortPolicy",
    "ClusterQueueSpecPreemptionReclaimWithinCohort",
    "ClusterQueueSpecPreemptionWithinClusterQueue",
    "ClusterQueueSpecQueueingStrategy",
    "ClusterQueueSpecResourceGroups",
    "ClusterQueueSpecResourceGroupsFlavors",
    "ClusterQueueSpecResourceGroupsFlavorsResources",
    "ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit",
    "ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit",
    "ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota",
    "ClusterQueueSpecStopPolicy",
    "ClusterQueueV1Beta2",
    "ClusterQueueV1Beta2Props",
    "ClusterQueueV1Beta2Spec",
    "ClusterQueueV1Beta2SpecAdmissionChecksStrategy",
    "ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks",
    "ClusterQueueV1Beta2SpecAdmissionScope",
    "ClusterQueueV1Beta2SpecAdmissionScopeAdmissionMode",
    "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy",
    "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration",
    "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints",
    "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationMode",
    "ClusterQueueV1Beta2SpecFairSharing",
    "ClusterQueueV1Beta2SpecFairSharingWeight",
    "ClusterQueueV1Beta2SpecFlavorFungibility",
    "ClusterQueueV1Beta2SpecFlavorFungibilityPreference",
    "ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow",
    "ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt",
    "ClusterQueueV1Beta2SpecNamespaceSelector",
    "ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions",
    "ClusterQueueV1Beta2SpecPreemption",
    "ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort",
    "ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy",
    "ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort",
    "ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue",
    "ClusterQueueV1Beta2SpecQueueingStrategy",
    "ClusterQueueV1Beta2SpecResourceGroups",
    "ClusterQueueV1Beta2SpecResourceGroupsFlavors",
    "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources",
    "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit",
    "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit",
    "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota",
    "ClusterQueueV1Beta2SpecStopPolicy",
    "LocalQueue",
    "LocalQueueProps",
    "LocalQueueSpec",
    "LocalQueueSpecFairSharing",
    "LocalQueueSpecFairSharingWeight",
    "LocalQueueSpecStopPolicy",
    "LocalQueueV1Beta2",
    "LocalQueueV1Beta2Props",
    "LocalQueueV1Beta2Spec",
    "LocalQueueV1Beta2SpecFairSharing",
    "LocalQueueV1Beta2SpecFairSharingWeight",
    "LocalQueueV1Beta2SpecStopPolicy",
    "ResourceFlavor",
    "ResourceFlavorProps",
    "ResourceFlavorSpec",
    "ResourceFlavorSpecNodeTaints",
    "ResourceFlavorSpecTolerations",
    "ResourceFlavorV1Beta2",
    "ResourceFlavorV1Beta2Props",
    "ResourceFlavorV1Beta2Spec",
    "ResourceFlavorV1Beta2SpecNodeTaints",
    "ResourceFlavorV1Beta2SpecTolerations",
    "Topology",
    "TopologyProps",
    "TopologySpec",
    "TopologySpecLevels",
    "TopologyV1Beta2",
    "TopologyV1Beta2Props",
    "TopologyV1Beta2Spec",
    "TopologyV1Beta2SpecLevels",
    "WorkloadPriorityClass",
    "WorkloadPriorityClassProps",
    "WorkloadPriorityClassV1Beta2",
    "WorkloadPriorityClassV1Beta2Props",
]

publication.publish()

def _typecheckingstub__a4d4299d0c519d9e192957aea2128640ba63416e9595b63aefc69a5781b1410e(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ClusterQueueSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0d253e8ef936fa7ad597345c72c17092bf9cf15e791d65f4f3521b2494741de9(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ClusterQueueSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b99250b7d4571f1892dd2329afe9053e3af4493f6a2de73c8cbf9abdfd12b3f6(
    *,
    admission_checks: typing.Optional[typing.Sequence[builtins.str]] = None,
    admission_checks_strategy: typing.Optional[typing.Union[ClusterQueueSpecAdmissionChecksStrategy, typing.Dict[builtins.str, typing.Any]]] = None,
    admission_scope: typing.Optional[typing.Union[ClusterQueueSpecAdmissionScope, typing.Dict[builtins.str, typing.Any]]] = None,
    cohort: typing.Optional[builtins.str] = None,
    fair_sharing: typing.Optional[typing.Union[ClusterQueueSpecFairSharing, typing.Dict[builtins.str, typing.Any]]] = None,
    flavor_fungibility: typing.Optional[typing.Union[ClusterQueueSpecFlavorFungibility, typing.Dict[builtins.str, typing.Any]]] = None,
    namespace_selector: typing.Optional[typing.Union[ClusterQueueSpecNamespaceSelector, typing.Dict[builtins.str, typing.Any]]] = None,
    preemption: typing.Optional[typing.Union[ClusterQueueSpecPreemption, typing.Dict[builtins.str, typing.Any]]] = None,
    queueing_strategy: typing.Optional[ClusterQueueSpecQueueingStrategy] = None,
    resource_groups: typing.Optional[typing.Sequence[typing.Union[ClusterQueueSpecResourceGroups, typing.Dict[builtins.str, typing.Any]]]] = None,
    stop_policy: typing.Optional[ClusterQueueSpecStopPolicy] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__cada476e4694e2e4fc21322455ffcb93fcd53c1551447271d5987104f24b7fe6(
    *,
    admission_checks: typing.Optional[typing.Sequence[typing.Union[ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks, typing.Dict[builtins.str, typing.Any]]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__23ce63cf2e817ebbe2098194c102283b1143f45770181b85d4598f30142606c7(
    *,
    name: builtins.str,
    on_flavors: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b4f1bba1b54c5e125d4d05cf158c91272466cfefdfeb6212f83c87b3d1d1ce84(
    *,
    admission_mode: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__fd9fb3b32bd22e4fc51d0214f0f154d2fdb351a3a1125bbee6396e44d746a148(
    *,
    weight: typing.Optional[ClusterQueueSpecFairSharingWeight] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ca2961666971173c41bbe105a732cfb10638ed66c4b0a0c7e782ca691a3f06bb(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d68791cc3be4584d475a0a38997a13627c4b0bb5da57db590624f9ad37af9886(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__36cd6e618a44078371f8e91f8447b2b24a2755c0a7b084b255f9b2e67b37dedc(
    *,
    preference: typing.Optional[ClusterQueueSpecFlavorFungibilityPreference] = None,
    when_can_borrow: typing.Optional[ClusterQueueSpecFlavorFungibilityWhenCanBorrow] = None,
    when_can_preempt: typing.Optional[ClusterQueueSpecFlavorFungibilityWhenCanPreempt] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7326d7756459331a0ee25fb65ed8fc72a2c19b5e1c0d5d02c5a23121c1b126ba(
    *,
    match_expressions: typing.Optional[typing.Sequence[typing.Union[ClusterQueueSpecNamespaceSelectorMatchExpressions, typing.Dict[builtins.str, typing.Any]]]] = None,
    match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__796da06ac2d044dc59c7a42e3571ecb0137fd1fb75294636576d78ff33683e9c(
    *,
    key: builtins.str,
    operator: builtins.str,
    values: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__befcd4779c8c5c38566e91ee504ea385afb130ee7be710097002ba2c1eb451d6(
    *,
    borrow_within_cohort: typing.Optional[typing.Union[ClusterQueueSpecPreemptionBorrowWithinCohort, typing.Dict[builtins.str, typing.Any]]] = None,
    reclaim_within_cohort: typing.Optional[ClusterQueueSpecPreemptionReclaimWithinCohort] = None,
    within_cluster_queue: typing.Optional[ClusterQueueSpecPreemptionWithinClusterQueue] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__94bf69a98bf04481ff9a2b71eacd706b606818f9b5c33bff482c47f19c0d8ace(
    *,
    max_priority_threshold: typing.Optional[jsii.Number] = None,
    policy: typing.Optional[ClusterQueueSpecPreemptionBorrowWithinCohortPolicy] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ae276565131d0e8b124607a71372e013ff9c78f06cf97658863fd035bb0ccc98(
    *,
    covered_resources: typing.Sequence[builtins.str],
    flavors: typing.Sequence[typing.Union[ClusterQueueSpecResourceGroupsFlavors, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7e362c59a31742f01b9da82e4f6732394c7b5175cf10fd9dbee079dc6c5d7ede(
    *,
    name: builtins.str,
    resources: typing.Sequence[typing.Union[ClusterQueueSpecResourceGroupsFlavorsResources, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c13a852c1a108f510b1ba74af9cee318267d3960123ab1a680247eaec8ffce39(
    *,
    name: builtins.str,
    nominal_quota: ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota,
    borrowing_limit: typing.Optional[ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit] = None,
    lending_limit: typing.Optional[ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__53f50262790b1f3f9e8e5552d4fef3f2fbec0af98849df19fb7bba00a5d8f712(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__71ee74fba24b0b44da2ffc1bfc52e42b7cba4a143e2ee3cea8493f9fe17aef69(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7831a4cf402401a1306525b03e89f1d967b38b815af5a481014f9cec71a6d683(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__64bdf444de13e27e643af9f06453e9508283ece7a42f4d60824d4e82abb08430(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2a10d6b808fbf9ffff9a1131b953db0653c04cd2d78ce7cdf3150a53509a6886(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3c634211c25096abd028685ba3154edc2f801df17f210b9f02dbbe63edaff01d(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__939fc59f8a313e8e3b6323bcdb1d3de514b7add12aee6035ea0af5ed6c705247(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ClusterQueueV1Beta2Spec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__aebc136ca98ec187b4767bedb7767601f47b33c3001e915a86e9930182ff7538(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ClusterQueueV1Beta2Spec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__853b307ac34d8db4f5d935d37425af11c5ae8e73ca0ac01381e22836e772f9c2(
    *,
    admission_checks_strategy: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecAdmissionChecksStrategy, typing.Dict[builtins.str, typing.Any]]] = None,
    admission_scope: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecAdmissionScope, typing.Dict[builtins.str, typing.Any]]] = None,
    cohort_name: typing.Optional[builtins.str] = None,
    concurrent_admission_policy: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy, typing.Dict[builtins.str, typing.Any]]] = None,
    fair_sharing: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecFairSharing, typing.Dict[builtins.str, typing.Any]]] = None,
    flavor_fungibility: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecFlavorFungibility, typing.Dict[builtins.str, typing.Any]]] = None,
    namespace_selector: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecNamespaceSelector, typing.Dict[builtins.str, typing.Any]]] = None,
    preemption: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecPreemption, typing.Dict[builtins.str, typing.Any]]] = None,
    queueing_strategy: typing.Optional[ClusterQueueV1Beta2SpecQueueingStrategy] = None,
    resource_groups: typing.Optional[typing.Sequence[typing.Union[ClusterQueueV1Beta2SpecResourceGroups, typing.Dict[builtins.str, typing.Any]]]] = None,
    stop_policy: typing.Optional[ClusterQueueV1Beta2SpecStopPolicy] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a1fcd7df41ab1d246a56b72452949d4b62f9ef3391507b6bf86337dee348865e(
    *,
    admission_checks: typing.Sequence[typing.Union[ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6ecd4d781901f0dfc4b603e5df54a3872861515005b6d53a4f543a949ea8af82(
    *,
    name: builtins.str,
    on_flavors: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8afc5c17012c17e51c160c78a2ac6820e1192e2a05e13b230718d4581c96a3b6(
    *,
    admission_mode: ClusterQueueV1Beta2SpecAdmissionScopeAdmissionMode,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b3edfc6f6854c7d62cba5fb9edddd821afb7d04fdb7de43abe2c8e35bd0b2e08(
    *,
    migration: typing.Union[ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8210d386dfdcd21752e1b6335c428bbe241a2ee474118a5e52486805b26c82a0(
    *,
    mode: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationMode,
    constraints: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__65da4fecc9ca8604369602ed4ace272522171e2a5bd70096dcbc5f87d739aa70(
    *,
    last_acceptable_flavor_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__eb4a2dbe6a1afbc8abe4da379e66cca70fba9b3808d8f0a0ca33cb121c490041(
    *,
    weight: typing.Optional[ClusterQueueV1Beta2SpecFairSharingWeight] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ecb52e6d34f006f59723ec29c06167cecfab8b0cddee401f28a4fda062c9cbb6(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8cb9dc934d72cbe4d395073ecd96dceb3eb291b1fc8efc222f5d35f10e9ef4ee(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__79f62161d9df292a0ce7bcb576ab5b2b2a5f1f5c978f1ad0eaa894da84106f7e(
    *,
    preference: typing.Optional[ClusterQueueV1Beta2SpecFlavorFungibilityPreference] = None,
    when_can_borrow: typing.Optional[ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow] = None,
    when_can_preempt: typing.Optional[ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0dcd4ea70277e08f3ba863a1e0dc363bc1d16c28ee1efca48047ec8522cee631(
    *,
    match_expressions: typing.Optional[typing.Sequence[typing.Union[ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions, typing.Dict[builtins.str, typing.Any]]]] = None,
    match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__4ac4958e5547cf6b92382b9cbcd5d6da95fba870e351ada557ab0c9eacfa6fec(
    *,
    key: builtins.str,
    operator: builtins.str,
    values: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6d803f41b81f3910ea72cb3ba8a5cf0859fe92fe3f43d6afa94c4d6270e9822e(
    *,
    borrow_within_cohort: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort, typing.Dict[builtins.str, typing.Any]]] = None,
    reclaim_within_cohort: typing.Optional[ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort] = None,
    within_cluster_queue: typing.Optional[ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a909ead9d296c52ea928427de61418220f320c80102205c233977b22135ba1d4(
    *,
    max_priority_threshold: typing.Optional[jsii.Number] = None,
    policy: typing.Optional[ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ef2b4352ba58f05086e4041e3bb9b724ca09d8e92e16984892dee5d9bdb38e0e(
    *,
    covered_resources: typing.Sequence[builtins.str],
    flavors: typing.Sequence[typing.Union[ClusterQueueV1Beta2SpecResourceGroupsFlavors, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9a44d9d2d44e3312305f53d501aad60a37ef96d1c0d0cae953799142e7ee7e67(
    *,
    name: builtins.str,
    resources: typing.Sequence[typing.Union[ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__cf146a9aba2cd7da409eb978b5318c95908c11ca4e3f3752c967faa0413dc9d5(
    *,
    name: builtins.str,
    nominal_quota: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota,
    borrowing_limit: typing.Optional[ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit] = None,
    lending_limit: typing.Optional[ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__74e8012f226c6b368040420a1b24039fd6784d2aa39d5ba98a59693beb39f068(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__134e861b806efa2f3a9e4ecf15c766f51671b218edff56b528a5bc54a6906ddd(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8e4b32bf0efd4ecf1598dfa721eb73718a8a5b359441502f554f38451819e8e5(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b410812ee819a1ebe45cef66ca618680cefc99a4d8f8e4f0b38e6da962c74b90(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1680691df1904b846f74e92ace281933e728483f8a98379dbbdb45395f1cc0e3(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3e4da68c37130693489644db928eed4cb0f1c443570b8dbbc3f14db2e20a1421(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0923ce3af15908b2a4a35327ca0f02a8cc64b2f7ed48b77ef35ee444ced5b2b3(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[LocalQueueSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5fdcdb0ce070970d038c3961f3dffb6ef8c152152320380eff9c87bb006ec40e(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[LocalQueueSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__934f01d1643edf3eaa51b4838e701da14397c6a0d4ca27f92860481415c2837a(
    *,
    cluster_queue: typing.Optional[builtins.str] = None,
    fair_sharing: typing.Optional[typing.Union[LocalQueueSpecFairSharing, typing.Dict[builtins.str, typing.Any]]] = None,
    stop_policy: typing.Optional[LocalQueueSpecStopPolicy] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c1694b9a7a75dde53eb659f275253ad29e263a40e8b4c3d5e6a17cdd3af273db(
    *,
    weight: typing.Optional[LocalQueueSpecFairSharingWeight] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9bac0db158ec3e7384cc2f345b1dd46e23cb2f58ebbfb275dafa6535cb6a6182(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__674ad5e9425746444da8b7f00f58afed6d8d0df521e716be7011c1e8196b5498(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__bd930ff92566b8977c690637d05733a09428a78db17a54f0e478059526ee274f(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[LocalQueueV1Beta2Spec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6529ea365a3995da09b194f57c7ef32a3e2db74c598829d28c083b7f4c6095cc(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[LocalQueueV1Beta2Spec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9e3c68f96d2db7f9e44eee4fa0f7b9208a387f4ae25c4c9527dac5b68ba8d663(
    *,
    cluster_queue: typing.Optional[builtins.str] = None,
    fair_sharing: typing.Optional[typing.Union[LocalQueueV1Beta2SpecFairSharing, typing.Dict[builtins.str, typing.Any]]] = None,
    stop_policy: typing.Optional[LocalQueueV1Beta2SpecStopPolicy] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3a320ac3236f3db69bc1985cb54bebefded56f5b8333b9ba72a01afd9f835178(
    *,
    weight: typing.Optional[LocalQueueV1Beta2SpecFairSharingWeight] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9fe0a7a156585b0702e415bed653dc90ae5423a9e5d84c21a9b061605fd2fc45(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__50c3355ce445a60ffe96ec6b81f3c5a66ed872940d771c1392ad08c29d31872b(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7ab10ef249d4e31596e8cf49ea20330cb300560c74efd8e8848e3b7161685401(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ResourceFlavorSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e080479a90b3411a5db8b388860c66293cf6ba693ddc64d77d6c8727eaf522d5(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ResourceFlavorSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__dc0191eec00e82d98b0083067457581e58266c424ad510a77c9621ec695bdbbd(
    *,
    node_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    node_taints: typing.Optional[typing.Sequence[typing.Union[ResourceFlavorSpecNodeTaints, typing.Dict[builtins.str, typing.Any]]]] = None,
    tolerations: typing.Optional[typing.Sequence[typing.Union[ResourceFlavorSpecTolerations, typing.Dict[builtins.str, typing.Any]]]] = None,
    topology_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__000c88a6fb1ba89d4adf6130802a833f6a8144e61a959bdc9f2e8f4ee408f650(
    *,
    effect: builtins.str,
    key: builtins.str,
    time_added: typing.Optional[datetime.datetime] = None,
    value: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__20a69c7c90d7c925261688d500272140a4baadb8a40fa76647b429f35766bc37(
    *,
    effect: typing.Optional[builtins.str] = None,
    key: typing.Optional[builtins.str] = None,
    operator: typing.Optional[builtins.str] = None,
    toleration_seconds: typing.Optional[jsii.Number] = None,
    value: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5c8514b3eb86972f2e25962cd2e841086f0b3c564e1fadb2112c4baad494c4b9(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ResourceFlavorV1Beta2Spec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c340f83c2618c02c309ac7aacdfc6aa89dedc9767df6f81ccbfdcc312a5cbc6c(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ResourceFlavorV1Beta2Spec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8c387f7818a2bbbd6bf2197b8c5c6e5594d91072aa79e9b5a376c1332a6a381a(
    *,
    node_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    node_taints: typing.Optional[typing.Sequence[typing.Union[ResourceFlavorV1Beta2SpecNodeTaints, typing.Dict[builtins.str, typing.Any]]]] = None,
    tolerations: typing.Optional[typing.Sequence[typing.Union[ResourceFlavorV1Beta2SpecTolerations, typing.Dict[builtins.str, typing.Any]]]] = None,
    topology_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a58ed25fb6cb4aa554009361acff5bc5f30087144f9bccb3ab846c1f958287e1(
    *,
    effect: builtins.str,
    key: builtins.str,
    time_added: typing.Optional[datetime.datetime] = None,
    value: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__625b22af10f48194906a3b8c00785255950ccfbcc5d5469cbb3bcea331e08339(
    *,
    effect: typing.Optional[builtins.str] = None,
    key: typing.Optional[builtins.str] = None,
    operator: typing.Optional[builtins.str] = None,
    toleration_seconds: typing.Optional[jsii.Number] = None,
    value: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7175d040b9170f292bc5d0ac5b6b150c0453adb4f1f09e2e7974aa928149fb64(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[TopologySpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__28a1bfb4d754e0abcfc72132d4ba9915b7c8c545d37a061f1efb49b70506a278(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[TopologySpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d22a8d7012063bddb9f86012ea763056b87e0431677ed3e69b3818dd9f73b00e(
    *,
    levels: typing.Sequence[typing.Union[TopologySpecLevels, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__345551ae9b762c0b23b2a834bf0bd13f240c5d6e64c3d518e2eb8297524c26e8(
    *,
    node_label: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__51edf8831cd0a6ee21ec8e0868baabc0ad8f33f00c9e1b80cd0fa6de47e99317(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[TopologyV1Beta2Spec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__df8cfe426bac1bfe3006546b795877505e5c0cf89e334386539c17d93e181785(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[TopologyV1Beta2Spec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1f7ffd865a2925a46416be5deb1734ef0d1bdd1fc7d970f7c673afb0f4d3d6bc(
    *,
    levels: typing.Sequence[typing.Union[TopologyV1Beta2SpecLevels, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b200db9d5acd139fd54db2c5b1896c0c5e880d98bf653129407ecec8fd109e51(
    *,
    node_label: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ae72d8f2b1c7b67be9671392813471265f0a96c4522a614ad3c09349340bcb8a(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    value: jsii.Number,
    description: typing.Optional[builtins.str] = None,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ff8538e4383b42fabd60e47cf637b0811fde79e5861be1b64ca627cf3b5f688d(
    *,
    value: jsii.Number,
    description: typing.Optional[builtins.str] = None,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ccbaa99692f9fe1abe803f4288f85ce67584d1236f81e036ad8f0360a2dfdfe8(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    value: jsii.Number,
    description: typing.Optional[builtins.str] = None,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ac448f47eac1e51a5259adb6e79024b5505e23642ac410c0675b92006b08e3ee(
    *,
    value: jsii.Number,
    description: typing.Optional[builtins.str] = None,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass
