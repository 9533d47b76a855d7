"""The text table of key_averages().table(), laid out as torch's."""


def format_time(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def format_memory(nbytes):
    kb, mb, gb = 1024, 1024**2, 1024**3
    if abs(nbytes) >= gb:
        return f"{nbytes / gb:.2f} Gb"
    if abs(nbytes) >= mb:
        return f"{nbytes / mb:.2f} Mb"
    if abs(nbytes) >= kb:
        return f"{nbytes / kb:.2f} Kb"
    return f"{nbytes} b"


def _percent(part, total):
    return f"{100.0 * part / total:.2f}%" if total > 0 else "0.00%"


def build_table(
    events,
    sort_by=None,
    row_limit=100,
    max_src_column_width=75,
    header=None,
    top_level_events_only=False,
):
    rows = list(events)
    if top_level_events_only:
        rows = [e for e in rows if getattr(e, "cpu_parent", None) is None]
    if sort_by is not None:
        rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
    if row_limit is not None and row_limit > 0:
        rows = rows[:row_limit]
    self_total = sum(e.self_cpu_time_total for e in events if not e.is_async)
    with_shapes = getattr(events, "_grouped_by_shape", False) or any(
        getattr(e, "input_shapes", None) and getattr(events, "_grouped_by_shape", False)
        for e in rows
    )
    stack_n = getattr(events, "_stack_n", 0)
    show_memory = getattr(events, "profile_memory", False)
    # torch's CUDA columns, when the session timed device work.
    show_cuda = getattr(events, "_use_cuda", False) or bool(getattr(events, "device_events", []))
    cuda_total = sum(e.self_cuda_time_total for e in events) if show_cuda else 0
    show_flops = getattr(events, "with_flops", False)

    name_width = max([len("Name")] + [len(str(e.key)) for e in rows])
    name_width = min(name_width, 55)
    columns = [("Name", name_width)]
    columns += [(c, 12) for c in ("Self CPU %", "Self CPU", "CPU total %", "CPU total")]
    columns.append(("CPU time avg", 12))
    if show_cuda:
        columns += [(c, 13) for c in ("Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg")]
    if show_memory:
        columns += [("CPU Mem", 12), ("Self CPU Mem", 12)]
        if show_cuda:
            columns += [("CUDA Mem", 13), ("Self CUDA Mem", 13)]
    columns.append(("# of Calls", 12))
    if with_shapes:
        columns.append(("Input Shapes", 40))
    if stack_n > 0:
        columns.append(("Source Location", max_src_column_width))
    if show_flops:
        columns.append(("Total MFLOPs", 14))

    def line(values):
        cells = []
        for (title, width), v in zip(columns, values):
            v = str(v)
            if len(v) > width:
                v = v[: width - 3] + "..."
            cells.append(
                v.ljust(width)
                if title in ("Name", "Input Shapes", "Source Location")
                else v.rjust(width)
            )
        return "  ".join(cells)

    sep = "  ".join("-" * w for _, w in columns)
    out = []
    if header:
        out.append("=" * len(sep))
        out.append(header)
    out += [sep, line([t for t, _ in columns]), sep]
    for e in rows:
        values = [
            e.key,
            _percent(e.self_cpu_time_total, self_total),
            format_time(e.self_cpu_time_total),
            _percent(e.cpu_time_total, self_total),
            format_time(e.cpu_time_total),
            format_time(e.cpu_time),
        ]
        if show_cuda:
            values += [
                format_time(e.self_cuda_time_total),
                _percent(e.self_cuda_time_total, cuda_total),
                format_time(e.cuda_time_total),
                format_time(e.cuda_time),
            ]
        if show_memory:
            values += [format_memory(e.cpu_memory_usage), format_memory(e.self_cpu_memory_usage)]
            if show_cuda:
                values += [
                    format_memory(e.cuda_memory_usage),
                    format_memory(e.self_cuda_memory_usage),
                ]
        values.append(e.count)
        if with_shapes:
            values.append(str(e.input_shapes))
        if stack_n > 0:
            values.append(e.stack[0] if e.stack else "")
        if show_flops:
            values.append(f"{e.flops / 1e6:.3f}" if e.flops else "--")
        out.append(line(values))
        # The group's other frames below the first, in the Source Location column (torch's way).
        if stack_n > 0 and e.stack:
            indent = sum(w + 2 for title, w in columns if title != "Total MFLOPs") - (
                max_src_column_width + 2
            )
            for frame in e.stack[1:stack_n]:
                out.append(" " * indent + frame[:max_src_column_width])
    out.append(sep)
    out.append(f"Self CPU time total: {format_time(self_total)}")
    if show_cuda:
        out.append(f"Self CUDA time total: {format_time(cuda_total)}")
    return "\n".join(out) + "\n"
