#!/bin/sh
# The window's translations (app/gui/translation.py, docs/gui.md "Adding a language"):
#   scripts/translations.sh           update app/gui/translations/lantern_*.ts from the code (pyside6-lupdate:
#                                     new texts are added as unfinished, removed ones dropped), then compile
#                                     each into its lantern_*.qm (pyside6-lrelease);
#   scripts/translations.sh add CODE  start a new language (e.g. `add de`): lantern_de.ts with every text to translate;
#   scripts/translations.sh release   only compile the .ts files into .qm (what `make dist` runs).
# The .qm files are committed, so a checkout runs translated without this script; a test checks that
# they match their .ts files and that every text of the window is translated (tests/test_gui_i18n.py).
set -eu
cd "$(dirname "$0")/.."
BIN="${LANTERN_QT_BIN:-.venv/bin}"
DIR=app/gui/translations
for tool in pyside6-lupdate pyside6-lrelease; do
    if [ ! -x "$BIN/$tool" ]; then
        echo "$BIN/$tool is missing; run \`make setup\` (PySide6 ships it) or set LANTERN_QT_BIN." >&2
        exit 1
    fi
done
# The window's texts: app/gui/ and every other module of app/ that uses its tr() (app/export/window.py).
SOURCES=$( (ls app/gui/*.py; grep -rlE "gui\.translation import" app --include='*.py') | sort -u)
update() {  # $1: a .ts file; its language comes from its name
    code=$(basename "$1" .ts | sed 's/^lantern_//')
    # shellcheck disable=SC2086 # one word per file
    "$BIN/pyside6-lupdate" -silent -locations none -no-obsolete -source-language en -target-language "$code" \
        $SOURCES -ts "$1"
    # lupdate reads the `#:` of attribute docs as notes for translators: they are not, so they go.
    sed '/<extracomment>.*<\/extracomment>/d' "$1" > "$1.new" && mv -f "$1.new" "$1"
}
case "${1:-update}" in
    add)
        code="${2:?usage: scripts/translations.sh add LANGUAGE_CODE (e.g. de)}"
        case "$code" in *[!a-z_A-Z]*|"") echo "'$code' is not a language code such as de or pt_BR." >&2; exit 1;; esac
        if [ -e "$DIR/lantern_$code.ts" ]; then echo "$DIR/lantern_$code.ts already exists." >&2; exit 1; fi
        update "$DIR/lantern_$code.ts"
        echo "Translate $DIR/lantern_$code.ts (pyside6-linguist or a text editor), add \"$code\" to LANGUAGES in app/gui/translation.py, then run scripts/translations.sh."
        exit 0;;
    update) for ts in "$DIR"/lantern_*.ts; do update "$ts"; done;;
    release) ;;
    *) echo "usage: scripts/translations.sh [update | add CODE | release]" >&2; exit 1;;
esac
# A running Lantern maps its .qm file: each is replaced by a rename, never rewritten in place.
for ts in "$DIR"/lantern_*.ts; do
    qm="${ts%.ts}.qm"
    "$BIN/pyside6-lrelease" -silent "$ts" -qm "$qm.new"
    if cmp -s "$qm.new" "$qm"; then rm -f "$qm.new"; else mv -f "$qm.new" "$qm"; fi
done
