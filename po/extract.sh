#!/usr/bin/env bash
# po/extract.sh [SOURCE_DIR] — the template of the tutor's messages (a .pot) on stdout: every
# string marked with tr("…"), trf("…", {…}), trfc("context", "…", {…}), trn("…", "…", n, {…})
# (singular and plural) or N_("…") in src/ and lessons/ (tutor/language.hpp).
#
# To update the Spanish catalogue after changing the sources:
#   po/extract.sh > /tmp/attn.pot && msgmerge --update --no-fuzzy-matching po/es.po /tmp/attn.pot
# then translate the new entries (msgstr "") in po/es.po. tests/po_catalogue.sh fails until every
# marked string is there, translated, and no translation is fuzzy.
set -euo pipefail
source_dir=${1:-$(dirname "${BASH_SOURCE[0]}")/..}
cd "$source_dir"
# xgettext warns about every msgid with a non-ASCII character (·, ±, …): the sources and the
# catalogue are UTF-8 throughout, so its messages are shown only when it fails.
messages=$(mktemp)
trap 'rm -f "$messages"' EXIT
find src lessons -name '*.cpp' -o -name '*.hpp' | LC_ALL=C sort |
  LC_ALL=C.UTF-8 xgettext --files-from=- --output=- --language=C++ --from-code=UTF-8 --package-name=attn --sort-by-file \
    --keyword= --keyword=tr --keyword=trf --keyword=trn:1,2 --keyword=trfc:1c,2 --keyword=N_ --add-comments=Translators: 2>"$messages" ||
  { cat "$messages" >&2; exit 1; }
