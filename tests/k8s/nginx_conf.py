"""A small reader of nginx configuration text, enough to compare the
routing of docker/nginx/arbiter-fleet.conf.template with the ConfigMap's
nginx.conf (docker/k8s/nginx-configmap.yaml).

A configuration is a list of directives; a directive is (name, args,
block), block being a list of directives or None. Quoted strings keep
their text without the quotes; comments are dropped. No includes, no
variables are expanded: the two files are compared as written.
"""

import re

_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|\'((?:[^\'\\]|\\.)*)\'|([{};])|([^\s{};"\']+)')


def _tokens(text):
    for line in text.splitlines():
        line = re.sub(r'(^|\s)#.*$', '', line) if '#' in line else line
        for m in _TOKEN.finditer(line):
            if m.group(3):
                yield ('punct', m.group(3))
            else:
                word = next(g for g in (m.group(1), m.group(2), m.group(4)) if g is not None)
                yield ('word', word)


def parse(text):
    """The directives of `text`; ValueError on unbalanced braces or a
    directive without its ';'."""
    stack = [[]]
    current = []
    for kind, value in _tokens(text):
        if kind == 'word':
            current.append(value)
        elif value == ';':
            if not current:
                raise ValueError("nginx: a ';' without a directive")
            stack[-1].append((current[0], current[1:], None))
            current = []
        elif value == '{':
            if not current:
                raise ValueError("nginx: a '{' without a directive")
            block = []
            stack[-1].append((current[0], current[1:], block))
            stack.append(block)
            current = []
        else:  # '}'
            if current or len(stack) == 1:
                raise ValueError("nginx: unbalanced '}'")
            stack.pop()
    if current or len(stack) != 1:
        raise ValueError('nginx: unterminated directive or block')
    return stack[0]


def find(directives, name, *args):
    """The directives named `name` whose first arguments are `args`."""
    return [d for d in directives if d[0] == name and tuple(d[1][:len(args)]) == args]


def without(directives, *names):
    """`directives` less those named in `names` (at this level only)."""
    return [d for d in directives if d[0] not in names]


def routing(directives):
    """What decides where a call goes and what a failure looks like: the
    `arbiter_fleet` upstream (less its server lines, which name the
    deployment's hosts) and the server block (less `listen`), as
    comparable values. KeyError names what is missing."""
    http = find(directives, 'http')
    if len(http) != 1:
        raise KeyError('one http block')
    upstreams = find(http[0][2], 'upstream', 'arbiter_fleet')
    if len(upstreams) != 1:
        raise KeyError('one upstream arbiter_fleet')
    servers = find(http[0][2], 'server')
    if len(servers) != 1:
        raise KeyError('one server block')
    return {
        'upstream': without(upstreams[0][2], 'server'),
        'server': without(servers[0][2], 'listen'),
        'access_log': find(http[0][2], 'access_log'),
    }


def upstream_servers(directives):
    """The `server` lines of the arbiter_fleet upstream, as (address, params)."""
    http = find(directives, 'http')[0][2]
    upstream = find(http, 'upstream', 'arbiter_fleet')[0][2]
    return [(d[1][0], d[1][1:]) for d in find(upstream, 'server')]


def render_template(text):
    """The template with its placeholders filled as docker/cluster.sh fills
    them, for parsing (the values are irrelevant to routing)."""
    text = text.replace('@PREFIX@', '/tmp/prefix').replace('@LISTEN@', '127.0.0.1:1')
    return text.replace('@SERVERS@', 'server 127.0.0.1:2;')
