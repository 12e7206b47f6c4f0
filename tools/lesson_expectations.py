#!/usr/bin/python3
"""Regenerate the expected values of the lesson documents with PyTorch, the independent reference.

Every lesson document (lessons/NN-slug/README.md) holds its worked example's inputs in
```attn input NAME``` blocks and the values each step must produce in ```attn expect NAME```
blocks. This script reads the inputs, recomputes every expected tensor with PyTorch code written
for that lesson (lessons/NN-slug/reference.py — plain torch, never the attn library), and
rewrites the body of each expect block with PyTorch's own print of the tensor.

    /usr/bin/python3 tools/lesson_expectations.py            # rewrite every lesson in place
    /usr/bin/python3 tools/lesson_expectations.py --check    # exit 1 if any block is out of date
    /usr/bin/python3 tools/lesson_expectations.py lessons/01-dot-product

Every edition of a lesson is written and checked: README.md and its translations beside it
(README.es.md), which hold the same blocks (tests/test_lesson_editions.cpp), so one run keeps
their numbers equal.

Both modes also check every expect block's tolerance the way the tutor's checker applies it
(src/tutor/lesson/check.hpp: half a unit of the last written digit + atol + rtol·|value|): it must be
smaller than the value it checks, unless the value is exactly 0, and a block that keeps the
default atol/rtol must let its written digits decide (atol + rtol·|value| no larger than their half
unit). Otherwise a wrong digit could pass under a green check; give such a block more digits or
an explicit atol=0. tests/test_lesson_conventions.cpp applies the same rules.

Needs Debian's python3-torch (PyTorch 1.13) and python3-numpy.
"""
import argparse
import ast
import importlib.util
import pathlib
import re
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^(```|~~~)(.*)$")
# A number as the tutor reads it: sign, digits, decimals, exponent (src/tutor/document/tensor_literal.cpp).
NUMBER = re.compile(r"(?<![\w.])(-?)(inf|nan|\d+(?:\.(\d*))?(?:[eE]([+-]?\d+))?)")
DEFAULT_ATOL = DEFAULT_RTOL = 1e-6  # src/tutor/lesson/check.hpp, Tolerance
EDITIONS = ("README.md", "README.es.md")  # English, then Spanish (src/tutor/lesson/lessons.hpp, edition_path)


def parse_literal(text):
    """The nested list inside `tensor(...)` or a bare `[...]`, as Python floats."""
    body = text.strip()
    if body.startswith("tensor("):
        body = body[len("tensor("):-1]
        body = re.sub(r",\s*dtype=torch\.\w+\s*$", "", body)
    body = re.sub(r"\binf\b", "1e999", body)
    return ast.literal_eval(body)


def parse_blocks(lines):
    """(kind, name, attributes, first body line index, end line index) for each attn block."""
    blocks = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        marker, info = match.group(1), match.group(2).split()
        end = i + 1
        while end < len(lines) and not lines[end].startswith(marker):
            end += 1
        if info and info[0] == "attn":
            attributes = dict(word.split("=", 1) for word in info[3:] if "=" in word)
            blocks.append((info[1], info[2], attributes, i + 1, end))
        i = end + 1
    return blocks


def as_printed(tensor):
    """float32 for printing; values within 1e-12 of zero are float64 rounding noise (0.1 + 0.2 − 0.3)
    and would switch PyTorch's print to scientific notation: they are written as 0."""
    tensor = tensor.detach()
    if tensor.is_floating_point():
        tensor = tensor.masked_fill(tensor.abs() < 1e-12, 0.0).float()
    return tensor


def tolerance_problems(document, lines, blocks):
    """Expect-block elements whose tolerance could let a wrong value pass (see the module doc)."""
    problems = []
    for kind, name, attributes, start, end in blocks:
        if kind != "expect":
            continue
        atol = float(attributes.get("atol", DEFAULT_ATOL))
        rtol = float(attributes.get("rtol", DEFAULT_RTOL))
        default = "atol" not in attributes and "rtol" not in attributes
        body = re.sub(r",\s*dtype=torch\.\w+", "", "\n".join(lines[start:end]))
        for match in NUMBER.finditer(body):
            sign, text, decimals, exponent = match.groups()
            if text in ("inf", "nan"):
                continue
            value = float(sign + text)
            places = len(decimals) if decimals is not None else 0
            resolution = 0.5 * 10.0 ** (int(exponent or 0) - places) if places else 0.0
            noise = atol + rtol * abs(value)
            if value != 0 and resolution + noise >= abs(value):
                problems.append(f"{document}:{start}: {name}: {sign}{text} is checked to ±{resolution + noise:.3g}, "
                                f"not smaller than the value itself")
            elif default and resolution > 0 and noise > resolution:
                problems.append(f"{document}:{start}: {name}: {sign}{text} is written to ±{resolution:.3g} but the "
                                f"default tolerance allows ±{noise:.3g}: give the block atol=0")
    return problems


def load_reference(lesson_dir):
    """lessons/NN-slug/reference.py, the lesson's PyTorch reference."""
    number, slug = lesson_dir.name.split("-", 1)
    path = lesson_dir / "reference.py"
    if not path.exists():
        sys.exit(f"{path}: no PyTorch reference for {lesson_dir.name}")
    # References share small building blocks (tools/reference/torch_layers.py).
    shared = str(ROOT / "tools" / "reference")
    if shared not in sys.path:
        sys.path.insert(0, shared)
    spec = importlib.util.spec_from_file_location(f"lesson{number}_{slug.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def regenerate(document, check_only):
    lesson_dir = document.parent
    reference = load_reference(lesson_dir)
    lines = document.read_text(encoding="utf-8").split("\n")
    blocks = parse_blocks(lines)

    inputs = {}
    for kind, name, attributes, start, end in blocks:
        if kind == "input":
            example = attributes.get("example", "main")
            values = parse_literal("\n".join(lines[start:end]))
            inputs.setdefault(example, {})[name] = torch.tensor(values, dtype=torch.float64)
    # The references compute in float64 (a seed's own code may still cast to float32, as the seed
    # did), and each result is printed as float32, the way a model's tensor prints: the digits are
    # those of the exact value, not of float32 cancellation (3.4149e-04 for w (1 − w), not 3.4154e-04).
    computed = {example: {name: as_printed(tensor) for name, tensor in reference.compute(example, tensors).items()}
                for example, tensors in inputs.items()}

    stale = []
    # Replace from the last block up, so earlier line numbers stay valid.
    for kind, name, attributes, start, end in reversed(blocks):
        if kind != "expect":
            continue
        example = attributes.get("example", "main")
        if name not in computed.get(example, {}):
            sys.exit(f"{document}:{start}: the reference computes no '{name}' for example '{example}'")
        fresh = str(computed[example][name]).split("\n")
        if lines[start:end] != fresh:
            stale.append(f"{document}:{start}: {name} (example {example})\n  written: "
                         + "\n           ".join(lines[start:end]) + "\n  PyTorch: " + "\n           ".join(fresh))
            lines[start:end] = fresh
    if stale and not check_only:
        document.write_text("\n".join(lines), encoding="utf-8")
    return stale + tolerance_problems(document, lines, parse_blocks(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("lessons", nargs="*", type=pathlib.Path, help="lesson folders (default: all)")
    parser.add_argument("--check", action="store_true", help="only report out-of-date blocks; exit 1 if any")
    arguments = parser.parse_args()
    # PyTorch's own print, wrapped at the documents' 76 columns rather than its default 80, so that
    # a long row (a vocabulary of 11) stays inside an 80-column projector once indented.
    torch.set_printoptions(profile="default", linewidth=76)
    folders = arguments.lessons or sorted(p for p in (ROOT / "lessons").iterdir() if (p / "README.md").exists())
    stale = []
    for folder in folders:
        for edition in EDITIONS:
            if edition == "README.md" or (folder / edition).exists():
                stale += regenerate(folder / edition, arguments.check)
    for entry in stale:
        print(entry)
    if arguments.check:
        print(f"{len(stale)} problem(s): expect blocks that differ from PyTorch or whose tolerance is too wide"
              if stale else "every expect block matches PyTorch, within a tolerance smaller than its value")
        return 1 if stale else 0
    print(f"rewrote the out-of-date expect blocks; {len(stale)} entry(ies) above")
    return 1 if any("checked to" in entry or "default tolerance" in entry for entry in stale) else 0


if __name__ == "__main__":
    sys.exit(main())
