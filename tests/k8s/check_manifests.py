#!/usr/bin/env python3
"""Checks the Kubernetes manifests of docker/k8s/ without a cluster.

    check_manifests.py [--root REPO] [--manifests DIR]

Every *.yaml under DIR (default REPO/docker/k8s) is parsed and checked:
known apiVersion/kind pairs and their required fields; every name a
manifest refers to exists (selectors match pod labels, a StatefulSet's
serviceName is a headless Service, volume mounts name volumes or claim
templates, configMap and secret volumes name a ConfigMap or the Secret the
docs/fleet.md has you create, probes and Service targetPorts name declared
container ports, commands run files their mounts provide, kustomization
resources exist); the nginx ConfigMap routes as
docker/nginx/arbiter-fleet.conf.template does, over exactly the
StatefulSet's pods by their headless-Service names and port; arguments of
arbiter containers are flags of server/service/main.cc and their ARBITER_*
variables are ones docker/entrypoint.sh reads; Agones Fleets name their
container and its ports.

With --kubectl, `kubectl kustomize` must also render kustomization.yaml
into the same objects, with the image it names.

Each problem is printed as "FILE: KIND/NAME: [code] message"; the exit
status is 1 when there is any, 0 otherwise.
"""

import argparse
import os
import re
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nginx_conf  # noqa: E402  (beside this file)
import workloads  # noqa: E402

# apiVersion/kind pairs these manifests may use, and the fields each needs
# (dotted paths from the document's root).
KNOWN = {
    ('v1', 'Service'): ['metadata.name', 'spec.ports'],
    ('v1', 'ConfigMap'): ['metadata.name', 'data'],
    ('v1', 'Secret'): ['metadata.name'],
    ('apps/v1', 'StatefulSet'): ['metadata.name', 'spec.serviceName', 'spec.selector.matchLabels',
                                 'spec.template.metadata.labels', 'spec.template.spec.containers'],
    ('apps/v1', 'Deployment'): ['metadata.name', 'spec.selector.matchLabels', 'spec.template.metadata.labels',
                                'spec.template.spec.containers'],
    ('policy/v1', 'PodDisruptionBudget'): ['metadata.name', 'spec.selector.matchLabels'],
    ('agones.dev/v1', 'Fleet'): ['metadata.name', 'spec.template.spec.ports', 'spec.template.spec.template.spec.containers'],
    ('agones.dev/v1', 'GameServer'): ['metadata.name', 'spec.ports', 'spec.template.spec.containers'],
    ('kustomize.config.k8s.io/v1beta1', 'Kustomization'): ['resources'],
}

# Secrets the walkthrough of docs/fleet.md creates with kubectl (tokens are not
# kept in the repository).
EXTERNAL_SECRETS = {'arbiter-tokens'}


class Doc:
    def __init__(self, path, body):
        self.path = path
        self.body = body
        self.kind = body.get('kind', '?') if isinstance(body, dict) else '?'
        meta = body.get('metadata') or {} if isinstance(body, dict) else {}
        self.name = meta.get('name', '?') if isinstance(meta, dict) else '?'

    def where(self):
        return f'{self.path}: {self.kind}/{self.name}'


class Report:
    def __init__(self):
        self.problems = []
        self.checks = 0

    def check(self, ok, doc, code, message):
        self.checks += 1
        if not ok:
            where = doc.where() if isinstance(doc, Doc) else doc
            self.problems.append(f'{where}: [{code}] {message}')
        return ok


def get(node, dotted):
    for part in dotted.split('.'):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def load(manifests):
    docs = []
    for folder, _, files in sorted(os.walk(manifests)):
        for f in sorted(files):
            if f.endswith(('.yaml', '.yml')):
                path = os.path.join(folder, f)
                with open(path, encoding='utf-8') as text:
                    for body in yaml.safe_load_all(text):
                        if body is not None:
                            docs.append(Doc(os.path.relpath(path, manifests), body))
    return docs


def check_kinds(docs, report):
    for d in docs:
        if not report.check(isinstance(d.body, dict), d, 'not-a-mapping', 'the document is not a mapping'):
            continue
        pair = (d.body.get('apiVersion'), d.kind)
        if not report.check(pair in KNOWN, d, 'unknown-kind', f'apiVersion {pair[0]} kind {pair[1]} is not one these manifests know'):
            continue
        for field in KNOWN[pair]:
            report.check(get(d.body, field) not in (None, '', [], {}), d, 'missing-field', f'{field} is required')


def server_flags(root):
    """Flag names arbiter-server accepts: the ABSL_FLAGs of server/service/main.cc."""
    with open(os.path.join(root, 'server', 'service', 'main.cc'), encoding='utf-8') as f:
        return set(re.findall(r'ABSL_FLAG\(\s*[\w:<>]+(?:<[^>]*>)?\s*,\s*(\w+)\s*,', f.read()))


def entrypoint_variables(root):
    with open(os.path.join(root, 'docker', 'entrypoint.sh'), encoding='utf-8') as f:
        return set(re.findall(r'\$\{(ARBITER_\w+)', f.read()))


def cluster_server_params(root):
    """The parameters docker/cluster.sh gives each upstream `server` line."""
    with open(os.path.join(root, 'docker', 'cluster.sh'), encoding='utf-8') as f:
        m = re.search(r'server \$addr([^;]*);', f.read())
    return m.group(1).split() if m else []


def check_kustomization(docs, manifests, report):
    for d in docs:
        if d.kind != 'Kustomization':
            continue
        folder = os.path.dirname(os.path.join(manifests, d.path))
        listed = set(d.body.get('resources') or [])
        for r in listed:
            report.check(os.path.exists(os.path.join(folder, r)), d, 'missing-resource', f'resource {r} does not exist')
        # Every manifest beside it (not in subfolders such as agones/, which
        # needs Agones' CRDs) is applied by `kubectl apply -k`.
        here = os.path.dirname(d.path)
        for other in docs:
            if os.path.dirname(other.path) == here and other.kind != 'Kustomization':
                report.check(os.path.basename(other.path) in listed, other, 'not-in-kustomization',
                             f'{other.path} is not listed in {d.path}')


def check_kustomize(docs, manifests, kubectl, report):
    """`kubectl kustomize` (offline) renders the Kustomization: the same
    objects as its resources, arbiter images renamed by its `images`."""
    for d in docs:
        if d.kind != 'Kustomization':
            continue
        folder = os.path.dirname(os.path.join(manifests, d.path))
        run = subprocess.run([kubectl, 'kustomize', folder], capture_output=True, text=True, timeout=60)
        if not report.check(run.returncode == 0, d, 'kustomize', f'kubectl kustomize failed: {run.stderr.strip()}'):
            continue
        rendered = [b for b in yaml.safe_load_all(run.stdout) if b]
        here = os.path.dirname(d.path)
        listed = {(o.kind, o.name) for o in docs if os.path.dirname(o.path) == here and o.kind != 'Kustomization'}
        got = {(b.get('kind'), get(b, 'metadata.name')) for b in rendered}
        report.check(got == listed, d, 'kustomize', f'kubectl kustomize rendered {sorted(got)}, the folder holds {sorted(listed)}')
        for image in d.body.get('images') or []:
            want = f'{image.get("newName", image["name"])}:{image.get("newTag", "latest")}'
            images = {c.get('image') for b in rendered for c in get(b, 'spec.template.spec.containers') or []}
            report.check(want in images, d, 'kustomize', f'no rendered container runs {want} (images: {sorted(images)})')


def check(root, manifests, kubectl=None):
    docs = load(manifests)
    report = Report()
    report.check(len(docs) > 0, manifests, 'no-manifests', 'no YAML documents found')
    check_kinds(docs, report)
    docs = [d for d in docs if isinstance(d.body, dict) and (d.body.get('apiVersion'), d.kind) in KNOWN]
    context = workloads.Context(docs, report, get, server_flags(root), entrypoint_variables(root), EXTERNAL_SECRETS)
    workloads.check_all(context)
    with open(os.path.join(root, 'docker', 'nginx', 'arbiter-fleet.conf.template'), encoding='utf-8') as f:
        template = f.read()
    workloads.check_nginx(context, template, cluster_server_params(root))
    check_kustomization(docs, manifests, report)
    if kubectl:
        check_kustomize(docs, manifests, kubectl, report)
    return docs, report


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--root', default=os.path.normpath(os.path.join(here, '..', '..')))
    parser.add_argument('--manifests')
    parser.add_argument('--kubectl', help='also render the Kustomization with this kubectl (offline)')
    args = parser.parse_args(argv)
    manifests = args.manifests or os.path.join(args.root, 'docker', 'k8s')
    docs, report = check(args.root, manifests, args.kubectl)
    for p in report.problems:
        print(p)
    status = f'{len(report.problems)} problem(s)' if report.problems else 'OK'
    print(f'check_manifests: {len(docs)} documents, {report.checks} checks: {status}')
    return 1 if report.problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
