"""What the desk's tests share: the Horns form as a browser submits it."""

from ssb.desk import catalog, forms


def horns_form(root, **changes):
    """The Horns form of the desk for folder ``root``: every field with its shown value, then ``changes``."""
    ed = catalog.instruments(root)["Horns"]
    data = {}
    for f in forms.fields_of(forms.tomllib.loads(ed.source_text())):
        if f.kind == "bool":
            if f.value:
                data[f.name] = "on"
        else:
            data[f.name] = f.shown()
    data.update(changes)
    return data
