"""Layout helpers shared by the plotting scripts (plot_report.py, plot_duty_cycle.py).

- place_labels: point labels that neither overprint one another nor leave the axes;
- fit_titles: titles wrapped to the figure's width, so that none is clipped;
- wrapped: a label on lines of at most LEGEND_CHARS characters;
- fit_legends: legend entries wrapped onto lines of at most LEGEND_CHARS, so that a long label (a user's
  command) neither runs off the canvas nor squeezes the axes away;
- title_texts: every title, axis label, legend entry and annotation of a figure (what must stay inside it).
"""
import textwrap

from matplotlib.text import Text

# Offsets (points) tried in turn for a label beside its point: right, above, left, below, then further out.
_OFFSETS = [(5, 4), (5, -11), (8, 14), (8, -20), (-5, 4), (-5, -11), (-8, 14), (-8, -20),
            (12, 24), (12, -30), (-12, 24), (-12, -30), (16, 36), (16, -42)]


def _overlaps(a, b, pad=4.0):  # pixels of air between two labels
    return a.x0 - pad < b.x1 and b.x0 - pad < a.x1 and a.y0 - pad < b.y1 and b.y0 - pad < a.y1


def place_labels(ax, labels, fontsize=7, **text_kw):
    """Annotates `labels` [(text, x, y)] in data coordinates, each at the first offset where its box overlaps
    no earlier label, stays inside the axes and has its middle nearer its own point than any other point;
    failing that, at the first free offset with a leader to its point (the first offset if none is free).
    Returns the annotations."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    inside = ax.get_window_extent(renderer)
    points = [ax.transData.transform((x, y)) for _, x, y in labels]
    placed, boxes = [], []

    def attempt(i, k, leader):
        text, x, y = labels[i]
        dx, dy = _OFFSETS[k]
        arrow = {"arrowstyle": "-", "color": "#7f7f7f", "lw": 0.6, "shrinkA": 0, "shrinkB": 3} if leader else None
        note = ax.annotate(text, (x, y), textcoords="offset points", xytext=(dx, dy), fontsize=fontsize,
                           ha="left" if dx >= 0 else "right", arrowprops=arrow, **text_kw)
        note.update_positions(renderer)
        return note, Text.get_window_extent(note, renderer)  # the words, not the leader

    def free(box):
        return (inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0 and box.y1 <= inside.y1
                and not any(_overlaps(box, other) for other in boxes))

    def own(i, box):
        cx, cy = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
        d = [(px - cx) ** 2 + (py - cy) ** 2 for px, py in points]
        return d[i] <= min(d)

    for i in range(len(labels)):
        chosen = None
        for leader, need_own in ((False, True), (True, False)):  # unambiguous first, else tied by a leader
            for k in range(len(_OFFSETS)):
                note, box = attempt(i, k, leader and k > 0)
                if free(box) and (not need_own or own(i, box)):
                    chosen = (note, box)
                    break
                note.remove()
            if chosen:
                break
        if chosen is None:  # nowhere free: keep the first offset rather than drop the label
            chosen = attempt(i, 0, False)
        placed.append(chosen[0])
        boxes.append(chosen[1])
    return placed


def title_texts(fig):
    """The figure's texts that must lie inside it: suptitle, figure texts, axes titles and labels,
    legend entries and titles, annotations (tick labels aside)."""
    out = list(fig.texts)
    if fig._suptitle is not None and fig._suptitle not in out:
        out.append(fig._suptitle)
    legends = list(fig.legends)
    for ax in fig.axes:
        out += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label] + list(ax.texts)
        if ax.get_legend() is not None:
            legends.append(ax.get_legend())
    for legend in legends:
        out += list(legend.get_texts()) + [legend.get_title()]
    return [t for t in out if t.get_visible() and t.get_text()]


LEGEND_CHARS = 48  # characters of a legend line: the longest label the project writes itself fits
MIN_AXES_INCHES = 3.0  # what an axes keeps across beside a legend drawn outside it


def wrapped(text, chars=LEGEND_CHARS):
    """`text` on lines of at most `chars` characters (a word longer than a line, a path, broken inside)."""
    return "\n".join(textwrap.fill(line, chars) for line in text.split("\n"))


def fit_legends(fig, relayout):
    """Wraps every legend entry (and legend title) longer than LEGEND_CHARS onto more lines, breaking inside a
    word (a path) where it must; then widens the figure where a legend would leave its axes under
    MIN_AXES_INCHES across (a legend beside the axes) or is wider than the figure (a legend above them), and
    lays the figure out again with `relayout(fig)`. A long label (a user's command) thus neither runs off the
    canvas nor squeezes the data away."""
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    changed = False
    for legend in legends:
        for t in list(legend.get_texts()) + [legend.get_title()]:
            lines = t.get_text().split("\n")
            if max(len(line) for line in lines) <= LEGEND_CHARS:
                continue
            t.set_text(wrapped(t.get_text()))
            changed = True
    if not legends or not fig.axes:
        return changed
    if changed:
        relayout(fig)
    for _ in range(3):  # widen by what is missing, lay out again, and look once more
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        missing = 0.0
        for legend in legends:
            box = legend.get_window_extent(renderer)
            axes = legend.axes if legend.axes is not None else fig.axes[0]
            across = axes.get_window_extent(renderer)
            if box.x0 >= across.x1 - 1:  # drawn right of its axes: they keep MIN_AXES_INCHES
                missing = max(missing, MIN_AXES_INCHES - across.width / fig.dpi)
            else:  # above or inside: no wider than the figure
                missing = max(missing, box.width / fig.dpi + 0.4 - fig.get_figwidth())
        if missing <= 0.02:
            break
        columns = len({round(a.get_position().x0, 2) for a in fig.axes if a.get_visible()})  # side by side
        fig.set_figwidth(fig.get_figwidth() + columns * missing + 0.05)
        relayout(fig)
        changed = True
    return changed


def fit_titles(fig, relayout):
    """Wraps every suptitle and axes title wider than the figure onto more lines, then lays the figure out
    again with `relayout(fig)` (tight_layout for most figures) so that the extra lines get room."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    width = fig.bbox.width
    titles = ([fig._suptitle] if fig._suptitle is not None else []) + [ax.title for ax in fig.axes]
    changed = False
    for t in titles:
        if not t.get_text():
            continue
        box = t.get_window_extent(renderer)
        lines = t.get_text().split("\n")
        centre = (box.x0 + box.x1) / 2  # a title is centred on its axes: room is twice the nearer edge's distance
        room = 2 * min(centre, width - centre) if t.get_ha() == "center" else width
        if box.width <= 0.96 * room:
            continue
        per_char = box.width / max(len(line) for line in lines)
        chars = max(20, int(0.92 * max(room, 0.5 * width) / per_char))
        t.set_text("\n".join(textwrap.fill(line, chars) for line in lines))
        changed = True
    if changed:
        relayout(fig)
    return changed
