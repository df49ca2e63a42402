"""Byte units, one spelling for every module: decimal GB as NVIDIA and AWS state rates and
sizes, binary GiB and TiB as Kubernetes, EC2 memory and FSx capacity are given."""

GB = 1e9
GIB = 2**30
TIB = 2**40
