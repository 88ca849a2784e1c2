import ipywidgets as W

from jupyter_agent.notebook.panel.column import GrowingColumn


def test_keeps_order_and_groups(meter):
    column = GrowingColumn(css_class="ja-body", group_size=4)
    items = [W.HTML(str(i)) for i in range(11)]
    for item in items:
        column.append(item)
    assert column.widgets() == items
    assert len(column.root.children) == 3  # groups of 4, 4, 3
    assert all(len(group.children) <= 4 for group in column.root.children)
    assert column.root._dom_classes == ("ja-body",)


def test_small_column_has_no_groups():
    column = GrowingColumn(css_class="x", group_size=8)
    items = [W.HTML(str(i)) for i in range(5)]
    for item in items:
        column.append(item)
    assert list(column.root.children) == items


def test_keep_with_previous_stays_in_the_group():
    column = GrowingColumn(css_class="x", group_size=2)
    items = [W.HTML(str(i)) for i in range(4)]
    column.append(items[0])
    column.append(items[1])
    column.append(items[2], keep_with_previous=True)
    column.append(items[3])
    assert column.widgets() == items
    assert [len(group.children) for group in column.root.children] == [3, 1]


def test_children_updates_stay_small(meter):
    column = GrowingColumn(css_class="x")
    items = [W.HTML("") for _ in range(200)]
    meter.reset()
    for item in items:
        column.append(item)
    children_updates = [
        item.content_bytes for item in meter.sent if item.msg_type == "comm_msg" and "children" in item.data["state"]
    ]
    # A flat box would resend up to 200 ids (~9 KB) per append, ~950 KB in all.
    assert max(children_updates) < 1500
    assert sum(children_updates) < 120_000
