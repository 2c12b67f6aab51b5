"""Text notation <-> wire JSON for concrete layouts (spec/PROTOCOL.md), written for the corpus
generator and for writing hand cases: `L("(2,2):(8,1)")` -> {"kind":"layout","shape":[2,2],"stride":[8,1]}."""


def parse_tuple(s, i=0):
    """Parses an IntTuple of ints at s[i:]; returns (value, next index)."""
    if s[i] == "(":
        items, i = [], i + 1
        while True:
            v, i = parse_tuple(s, i)
            items.append(v)
            if s[i] == ",":
                i += 1
                continue
            assert s[i] == ")", s
            return items, i + 1
    j = i
    while j < len(s) and (s[j].isdigit() or s[j] == "-"):
        j += 1
    return int(s[i:j]), j


def L(text):
    text = text.replace(" ", "")
    shape, i = parse_tuple(text)
    assert text[i] == ":", text
    stride, j = parse_tuple(text, i + 1)
    assert j == len(text), text
    return {"kind": "layout", "shape": shape, "stride": stride}


def text(x):
    if isinstance(x, list):
        return "(" + ",".join(text(v) for v in x) + ")"
    return str(x)


def layout_text(shape, stride):
    return text(shape) + ":" + text(stride)
