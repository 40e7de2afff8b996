"""The documentation's snippets: the text between <!-- snippet: NAME -->
and <!-- /snippet --> in README.md ($ARBITER_README) or docs/*.md
($ARBITER_DOCS_DIR, by default the docs/ beside the README), for the tests
that run them (test_readme.py, test_pip_install.py)."""

import glob
import os
import re


def documentation():
    readme = os.environ["ARBITER_README"]
    docs = os.environ.get("ARBITER_DOCS_DIR", os.path.join(os.path.dirname(readme), "docs"))
    return [readme] + sorted(glob.glob(os.path.join(docs, "*.md")))


def snippet(name):
    found = []
    for path in documentation():
        with open(path, encoding="utf-8") as f:
            text = f.read()
        found += re.findall(rf"<!-- snippet: {name} -->\n```\w*\n(.*?)```\n<!-- /snippet -->", text, re.S)
    assert found, f"README.md and docs/*.md have no snippet {name}"
    assert len(found) == 1, f"snippet {name} appears {len(found)} times in README.md and docs/*.md"
    return found[0]
