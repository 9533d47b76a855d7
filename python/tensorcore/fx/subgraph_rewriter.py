"""replace_pattern: finds every occurrence of a pattern graph in a GraphModule and replaces it."""

from typing import Dict, NamedTuple

from .graph_module import GraphModule, _copy_attr
from .node import Node

__all__ = ["Match", "replace_pattern"]


class Match(NamedTuple):
    anchor: Node  # the node of the original graph that the pattern's output matched
    nodes_map: Dict[Node, Node]  # pattern node -> original graph node


def _as_graph_module(fn, what):
    from ._symbolic_trace import symbolic_trace

    if isinstance(fn, GraphModule):
        return fn
    if not callable(fn):
        raise TypeError(
            f"replace_pattern: {what} must be a callable or Module, got {type(fn).__name__}"
        )
    return symbolic_trace(fn)


def _consts_equal(a, b):
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:  # values whose == is not a bool (tensors): identity only
        return a is b


def _match_arg(pa, ga, m):
    if isinstance(pa, Node):
        return isinstance(ga, Node) and _match_node(pa, ga, m)
    if isinstance(pa, (tuple, list)):
        if not isinstance(ga, (tuple, list)) or len(pa) != len(ga):
            return False
        return all(_match_arg(x, y, m) for x, y in zip(pa, ga))
    if isinstance(pa, dict):
        if not isinstance(ga, dict) or set(pa) != set(ga):
            return False
        return all(_match_arg(pa[k], ga[k], m) for k in pa)
    return not isinstance(ga, Node) and _consts_equal(pa, ga)


def _match_node(pn, gn, m):
    if pn in m:
        return m[pn] is gn
    if pn.op == "placeholder":
        # Two different pattern inputs may not bind the same value unless it is the same input.
        m[pn] = gn
        return True
    if pn.op != gn.op or gn.op in ("placeholder", "output"):
        return False
    if pn.op == "call_function":
        if pn.target is not gn.target:
            return False
    elif pn.target != gn.target:
        return False
    if len(pn.args) != len(gn.args) or set(pn.kwargs) != set(gn.kwargs):
        return False
    trial = dict(m)
    trial[pn] = gn
    for pa, ga in zip(pn.args, gn.args):
        if not _match_arg(pa, ga, trial):
            return False
    for k in pn.kwargs:
        if not _match_arg(pn.kwargs[k], gn.kwargs[k], trial):
            return False
    m.clear()
    m.update(trial)
    return True


def replace_pattern(gm, pattern, replacement):
    """Replaces every non-overlapping match of pattern (a function or Module, traced) in gm's graph
    by replacement (traced too, with the same number of inputs); the pattern's inputs match any
    value, its other nodes match nodes with the same op, target and constant arguments, and the
    pattern's intermediate values may not be used outside the match. Returns the Matches;
    gm is recompiled."""
    if not isinstance(gm, GraphModule):
        raise TypeError(f"replace_pattern: gm must be a GraphModule, got {type(gm).__name__}")
    pattern_gm = _as_graph_module(pattern, "pattern")
    replacement_gm = _as_graph_module(replacement, "replacement")
    p_graph, r_graph, graph = pattern_gm.graph, replacement_gm.graph, gm.graph

    p_output = [n for n in p_graph.nodes if n.op == "output"][0]
    p_anchor = p_output.args[0]
    if not isinstance(p_anchor, Node) or p_anchor.op == "placeholder":
        raise ValueError(
            "replace_pattern: the pattern must return one value computed from its inputs"
        )
    p_inputs = [n for n in p_graph.nodes if n.op == "placeholder"]
    r_inputs = [n for n in r_graph.nodes if n.op == "placeholder"]
    if len(p_inputs) != len(r_inputs):
        raise ValueError(
            f"replace_pattern: the pattern takes {len(p_inputs)} inputs but the replacement "
            f"takes {len(r_inputs)}"
        )
    unused = [p.name for p in p_inputs if not p.users]
    if unused:
        raise ValueError(f"replace_pattern: pattern inputs {unused} are not used by the pattern")

    matches = []
    taken = set()
    for node in reversed(list(graph.nodes)):
        if node in taken:
            continue
        m = {}
        if not _match_node(p_anchor, node, m):
            continue
        internal = {gn for pn, gn in m.items() if pn.op != "placeholder"}
        if internal & taken or any(set(m[p] for p in p_inputs) & internal for _ in (0,)):
            continue
        escapes = any(u not in internal for gn in internal if gn is not node for u in gn.users)
        if escapes:
            continue
        taken |= internal
        matches.append(Match(node, m))

    for node in r_graph.nodes:
        if node.op in ("get_attr", "call_module"):
            try:
                gm.get_submodule(node.target) if node.op == "call_module" else None
                present = _has_path(gm, node.target)
            except AttributeError:
                present = False
            if not present:
                _copy_attr(replacement_gm, gm, node.target)

    for match in matches:
        val_map = {r: match.nodes_map[p] for r, p in zip(r_inputs, p_inputs)}
        with graph.inserting_before(match.anchor):
            new_value = graph.graph_copy(r_graph, val_map)
        if not isinstance(new_value, Node):
            raise ValueError("replace_pattern: the replacement must return one value")
        match.anchor.replace_all_uses_with(new_value)
        internal = {gn for pn, gn in match.nodes_map.items() if pn.op != "placeholder"}
        for gn in reversed(list(graph.nodes)):
            if gn in internal:
                graph.erase_node(gn)
    gm.recompile()
    return matches


def _has_path(module, target):
    obj = module
    for atom in target.split("."):
        if not hasattr(obj, atom):
            return False
        obj = getattr(obj, atom)
    return True
