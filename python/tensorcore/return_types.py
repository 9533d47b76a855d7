"""Named tuples returned by ops with (values, indices) results, like torch.return_types."""

from collections import namedtuple

_VI = ("values", "indices")

max = namedtuple("max", _VI)
min = namedtuple("min", _VI)
sort = namedtuple("sort", _VI)
topk = namedtuple("topk", _VI)
kthvalue = namedtuple("kthvalue", _VI)
median = namedtuple("median", _VI)
nanmedian = namedtuple("nanmedian", _VI)
mode = namedtuple("mode", _VI)
cummax = namedtuple("cummax", _VI)
cummin = namedtuple("cummin", _VI)
histogram = namedtuple("histogram", ["hist", "bin_edges"])
histogramdd = namedtuple("histogramdd", ["hist", "bin_edges"])
frexp = namedtuple("frexp", ["mantissa", "exponent"])

__all__ = [
    "max",
    "min",
    "sort",
    "topk",
    "kthvalue",
    "median",
    "nanmedian",
    "mode",
    "cummax",
    "cummin",
    "histogram",
    "histogramdd",
    "frexp",
]
