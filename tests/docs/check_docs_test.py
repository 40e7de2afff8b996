#!/usr/bin/env python3
"""check_docs.py against small documentation trees: a good one passes, and
each kind of breakage is named."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'check_docs.py')

README = """# Project

Read [the guide](docs/guide.md), its [setup](docs/guide.md#setting-up-c), and
[notes](docs/notes.md). ![a picture](docs/picture.svg) `[not a link](docs/none.md)`

## Layout

See [below](#layout) and [the folder](docs/).

```sh
echo "[not a link either](docs/none.md)"
```
"""

GUIDE = """# Guide

## Setting up `C++`

Back to the [README](../README.md#project).

<!-- snippet: program -->
```python
print("hello")
```
<!-- /snippet -->
"""

NOTES = """# Notes

## Notes

Repeated headings get a suffix: [the second](#notes-1).
"""


class CheckDocsTest(unittest.TestCase):
    def tree(self, readme=README, guide=GUIDE, notes=NOTES, extra=None):
        root = tempfile.mkdtemp(prefix='check-docs-')
        self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        os.mkdir(os.path.join(root, 'docs'))
        files = {'README.md': readme, 'docs/guide.md': guide, 'docs/notes.md': notes, 'docs/picture.svg': '<svg/>'}
        files.update(extra or {})
        for name, text in files.items():
            with open(os.path.join(root, name), 'w', encoding='utf-8') as f:
                f.write(text)
        return root

    def check(self, root):
        result = subprocess.run([sys.executable, CHECKER, '--root', root], capture_output=True, text=True)
        return result.returncode, result.stdout

    def assertProblem(self, root, text):
        code, out = self.check(root)
        self.assertEqual(code, 1, out)
        self.assertIn(text, out)

    def test_good_tree_passes(self):
        code, out = self.check(self.tree())
        self.assertEqual(code, 0, out)
        self.assertIn('documentation ok', out)

    def test_long_readme(self):
        self.assertProblem(self.tree(readme=README + 'line\n' * 200), 'README.md has 212 lines; at most 200')

    def test_page_not_linked(self):
        self.assertProblem(self.tree(extra={'docs/orphan.md': '# Orphan\n'}), 'docs/orphan.md is not linked from README.md')

    def test_missing_file(self):
        self.assertProblem(self.tree(readme=README + '[gone](docs/gone.md)\n'), 'link docs/gone.md: no file docs/gone.md')

    def test_missing_anchor(self):
        self.assertProblem(self.tree(readme=README + '[x](docs/guide.md#setup)\n'),
                           'link docs/guide.md#setup: docs/guide.md has no heading #setup')

    def test_missing_local_anchor_in_a_page(self):
        self.assertProblem(self.tree(notes=NOTES.replace('#notes-1', '#notes-2')), 'docs/notes.md has no heading #notes-2')

    def test_broken_link_in_a_page(self):
        self.assertProblem(self.tree(guide=GUIDE + '[x](../src/nothing.cc)\n'), 'no file src/nothing.cc')

    def test_unclosed_and_repeated_snippets(self):
        self.assertProblem(self.tree(guide=GUIDE + '<!-- snippet: open -->\n'), 'snippet open is never closed')
        repeated = '<!-- snippet: program -->\n```python\n```\n<!-- /snippet -->\n'
        self.assertProblem(self.tree(notes=NOTES + repeated), 'snippet program appears 2 times')


if __name__ == '__main__':
    unittest.main()
