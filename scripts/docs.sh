#!/usr/bin/env bash
# The documentation site: checks that the generated reference pages still say what the code
# says (scripts/docs.py --check: the CLI's help, the configuration reader's keys, the OpenAPI
# document, the journal's event kinds, diagnosis codes and refusal reasons), then builds the
# site with mkdocs (material theme) in strict mode, so a broken link or a page missing from the
# navigation fails, into .build/docs-site.
#
#   scripts/docs.sh                  check and build
#   scripts/docs.sh serve            check, then serve the site with live reload on 127.0.0.1:8000
#
# The tools are the pinned docs/requirements.txt, in .build/docs-venv (made again only when
# that file changes). The binary the generated pages are checked against is $MOCKAPNS_BIN, else
# .build/debug/mockapns. After changing the CLI, a setting, the OpenAPI document, an event kind
# or a diagnosis code, run scripts/docs.py to rewrite the pages, and commit them.
set -euo pipefail
export NO_MKDOCS_2_WARNING=1   # mkdocs-material's notice about its successor, on every build
cd "$(dirname "$0")/.."

venv=.build/docs-venv
requirements=docs/requirements.txt
if [[ ! -x "$venv/bin/mkdocs" ]] || ! cmp -s "$requirements" "$venv/requirements.txt"; then
    echo "== creating $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$venv/requirements.txt"
fi

echo "== scripts/docs.py --check"
python3 scripts/docs.py --check

if [[ "${1:-}" == serve ]]; then
    exec "$venv/bin/mkdocs" serve --strict --dev-addr 127.0.0.1:8000
fi
echo "== mkdocs build --strict --site-dir .build/docs-site"
"$venv/bin/mkdocs" build --strict --clean --site-dir .build/docs-site 2>&1
echo "docs: site built in .build/docs-site ($(find .build/docs-site -name '*.html' | wc -l) pages)"
