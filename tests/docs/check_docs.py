#!/usr/bin/env python3
"""Checks the shape of the documentation without building anything.

    check_docs.py [--root REPO]

- README.md is at most 200 lines;
- every page docs/*.md is linked from README.md;
- every relative link (and image) in README.md and docs/*.md names a file or
  folder that exists, and an anchor (#...) names a heading of its page, by
  GitHub's rule for heading anchors;
- every <!-- snippet: NAME --> marker is closed by <!-- /snippet --> and
  names a snippet that appears once (the tests that run snippets read them
  from README.md and docs/*.md: client/python/tests/test_readme.py,
  client/node/test/readme.test.js, tests/package/examples_test.sh).

Links inside code (fenced blocks and `spans`) are not links. Each problem
is printed as "FILE:LINE: message"; the exit status is 1 when there is
any, 0 otherwise.
"""

import argparse
import os
import re
import sys
import urllib.parse

MAX_README_LINES = 200

# [text](target) and ![alt](target); the target ends at whitespace or ')'.
LINK = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
SNIPPET_OPEN = re.compile(r'^<!-- snippet: ([A-Za-z0-9_-]+) -->$')
SNIPPET_CLOSE = '<!-- /snippet -->'


def prose_lines(text, blank_code=True):
    """(line number, line) outside fenced code blocks; inline code spans
    blanked unless blank_code is False (headings keep their words)."""
    fence = None
    for number, line in enumerate(text.split('\n'), start=1):
        stripped = line.lstrip()
        marker = re.match(r'(`{3,}|~{3,})', stripped)
        if fence is None and marker:
            fence = marker.group(1)
            continue
        if fence is not None:
            if stripped.startswith(fence) and stripped.strip(fence[0]) == '':
                fence = None
            continue
        if blank_code:
            line = re.sub(r'(`+)(?:(?!\1).)+?\1', lambda m: ' ' * len(m.group(0)), line)
        yield number, line


def slug(heading):
    """GitHub's anchor for a heading: lower case, inline markup dropped,
    everything but letters, digits, spaces, '-' and '_' removed, spaces to
    '-'."""
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', heading)  # links keep their text
    text = re.sub(r'<[^>]+>', '', text)
    text = text.replace('`', '').replace('*', '')
    text = text.strip().lower()
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def anchors(text):
    """Every heading anchor of a page, with GitHub's -1, -2 ... for repeats."""
    seen = {}
    found = set()
    for _, line in prose_lines(text, blank_code=False):
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f'{base}-{n}')
    return found


class Checker:
    def __init__(self, root):
        self.root = root
        self.problems = []
        self.texts = {}

    def problem(self, path, line, message):
        self.problems.append(f'{os.path.relpath(path, self.root)}:{line}: {message}')

    def text(self, path):
        if path not in self.texts:
            with open(path, encoding='utf-8') as f:
                self.texts[path] = f.read()
        return self.texts[path]

    def pages(self):
        docs = os.path.join(self.root, 'docs')
        names = sorted(n for n in os.listdir(docs) if n.endswith('.md')) if os.path.isdir(docs) else []
        return [os.path.join(docs, n) for n in names]

    def links(self, path):
        """(line, target) of every link in the page's prose."""
        for number, line in prose_lines(self.text(path)):
            for m in LINK.finditer(line):
                yield number, m.group(1)

    def check_readme_length(self, readme):
        lines = self.text(readme).count('\n') + (0 if self.text(readme).endswith('\n') else 1)
        if lines > MAX_README_LINES:
            self.problem(readme, lines, f'README.md has {lines} lines; at most {MAX_README_LINES}')

    def check_pages_linked(self, readme, pages):
        linked = set()
        for _, target in self.links(readme):
            target_path = urllib.parse.unquote(target.split('#', 1)[0])
            if target_path and '://' not in target:
                linked.add(os.path.normpath(os.path.join(os.path.dirname(readme), target_path)))
        for page in pages:
            if os.path.normpath(page) not in linked:
                self.problem(readme, 1, f'{os.path.relpath(page, self.root)} is not linked from README.md')

    def check_links(self, path):
        for number, target in self.links(path):
            if re.match(r'^[a-z][a-z0-9+.-]*:', target):  # https:, mailto:, ...
                continue
            file_part, _, anchor = target.partition('#')
            file_part = urllib.parse.unquote(file_part)
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(dest):
                self.problem(path, number, f'link {target}: no file {os.path.relpath(dest, self.root)}')
                continue
            if not os.path.realpath(dest).startswith(os.path.realpath(self.root) + os.sep):
                self.problem(path, number, f'link {target}: outside the repository')
                continue
            if anchor:
                if not dest.endswith('.md'):
                    self.problem(path, number, f'link {target}: an anchor into a file that is not Markdown')
                elif anchor not in anchors(self.text(dest)):
                    self.problem(path, number,
                                 f'link {target}: {os.path.relpath(dest, self.root)} has no heading #{anchor}')

    def check_snippets(self, files):
        where = {}
        for path in files:
            open_name, open_line = None, 0
            for number, line in enumerate(self.text(path).split('\n'), start=1):
                m = SNIPPET_OPEN.match(line)
                if m:
                    if open_name is not None:
                        self.problem(path, number, f'snippet {m.group(1)} opens inside snippet {open_name}')
                    open_name, open_line = m.group(1), number
                    where.setdefault(open_name, []).append(f'{os.path.relpath(path, self.root)}:{number}')
                elif line == SNIPPET_CLOSE:
                    if open_name is None:
                        self.problem(path, number, 'a snippet close marker without an open one')
                    open_name = None
                elif 'snippet:' in line and line.lstrip().startswith('<!--'):
                    self.problem(path, number, f'malformed snippet marker: {line.strip()}')
            if open_name is not None:
                self.problem(path, open_line, f'snippet {open_name} is never closed')
        for name, places in sorted(where.items()):
            if len(places) > 1:
                self.problem(os.path.join(self.root, places[1].split(':')[0]), int(places[1].split(':')[1]),
                             f'snippet {name} appears {len(places)} times ({", ".join(places)})')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    checker = Checker(root)
    readme = os.path.join(root, 'README.md')
    pages = checker.pages()
    if not pages:
        checker.problem(readme, 1, 'docs/ holds no *.md page')
    checker.check_readme_length(readme)
    checker.check_pages_linked(readme, pages)
    for path in [readme] + pages:
        checker.check_links(path)
    checker.check_snippets([readme] + pages)
    for p in checker.problems:
        print(p)
    files = 1 + len(pages)
    if checker.problems:
        print(f'{len(checker.problems)} problem(s) in {files} file(s)')
        return 1
    print(f'documentation ok: README.md and {len(pages)} page(s) of docs/')
    return 0


if __name__ == '__main__':
    sys.exit(main())
