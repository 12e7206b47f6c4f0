#!/usr/bin/env bash
# tests/po_catalogue.sh SOURCE_DIR — the Spanish catalogue against the sources: every string
# marked for translation (tr, trf, trfc, trn, N_ in src/ and lessons/: po/extract.sh) is in po/es.po and
# translated; no entry is fuzzy or empty; no entry is left over from a string the sources no longer
# have; every translation (each plural form of an ngettext entry too) keeps the {n} placeholders
# of its msgid; msgfmt --check accepts it (with plural entries, it requires the Plural-Forms header).
set -euo pipefail
source_dir=${1:?usage: po_catalogue.sh SOURCE_DIR}
catalogue=$source_dir/po/es.po
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { printf 'po_catalogue: %s\n' "$*" >&2; failed=1; }

bash "$source_dir/po/extract.sh" "$source_dir" >"$work/attn.pot"
[ "$(grep -c '^msgid ' "$work/attn.pot")" -gt 100 ] || fail "po/extract.sh found too few strings: is the keyword list right?"

# Every marked string has a translation (msgcmp ignores untranslated and fuzzy entries of es.po).
msgcmp "$catalogue" "$work/attn.pot" 2>"$work/missing" || fail "strings of the sources missing from po/es.po or untranslated:
$(cat "$work/missing")"
# Nothing left over from strings the sources no longer have.
msgcmp --use-untranslated --use-fuzzy "$work/attn.pot" "$catalogue" 2>"$work/stale" || fail "entries of po/es.po no source marks:
$(cat "$work/stale")"
# No fuzzy and no empty translation.
[ -z "$(msgattrib --only-fuzzy --no-obsolete "$catalogue")" ] || fail "fuzzy entries in po/es.po: $(msgattrib --only-fuzzy --no-obsolete "$catalogue")"
[ -z "$(msgattrib --untranslated --no-obsolete "$catalogue")" ] || fail "untranslated entries in po/es.po: $(msgattrib --untranslated --no-obsolete "$catalogue")"
# The placeholders {1}, {2}, … of each msgid, all of them, in its translation.
msgexec -i "$catalogue" sh -c '
  [ -z "$MSGEXEC_MSGID" ] && exit 0
  id=$(printf "%s" "$MSGEXEC_MSGID" | grep -o "{[0-9]*}" | sort | tr "\n" " " || true)
  str=$(grep -o "{[0-9]*}" | sort | tr "\n" " " || true)
  [ "$id" = "$str" ] || printf "placeholders differ (%s / %s): %s\n" "$id" "$str" "$MSGEXEC_MSGID"
' >"$work/placeholders"
[ ! -s "$work/placeholders" ] || fail "$(cat "$work/placeholders")"
msgfmt --check --output-file=/dev/null "$catalogue" || fail "msgfmt --check rejects po/es.po"

[ $failed -eq 0 ] && echo "po/es.po: every one of $(grep -c '^msgid ' "$work/attn.pot") marked strings translated"
exit $failed
