"""The reference checks of check_manifests.py: pods, what they mount and
expose, the objects that select them, and the nginx ConfigMap's routing."""

import re

import nginx_conf

PORT_POLICIES = {'Dynamic', 'Static', 'Passthrough', 'None'}
AGONES_PROTOCOLS = {'UDP', 'TCP', 'TCPUDP'}
AGONES_HEALTH = {'disabled', 'initialDelaySeconds', 'periodSeconds', 'failureThreshold'}


class Pod:
    """A pod template inside a workload."""

    def __init__(self, doc, labels, spec, claims=()):
        self.doc = doc
        self.labels = labels or {}
        self.spec = spec or {}
        self.claims = set(claims)

    def containers(self):
        return [c for c in self.spec.get('containers') or [] if isinstance(c, dict)]

    def ports(self):
        return [p for c in self.containers() for p in c.get('ports') or []]


class Context:
    def __init__(self, docs, report, get, flags, variables, external_secrets):
        self.docs = docs
        self.report = report
        self.get = get
        self.flags = flags
        self.variables = variables
        self.secrets = {d.name for d in docs if d.kind == 'Secret'} | set(external_secrets)
        self.config_maps = {d.name: d.body.get('data') or {} for d in docs if d.kind == 'ConfigMap'}
        self.pods = [p for d in docs for p in pods_of(d, get)]

    def of_kind(self, kind):
        return [d for d in self.docs if d.kind == kind]


def pods_of(doc, get):
    if doc.kind in ('StatefulSet', 'Deployment'):
        claims = [get(c, 'metadata.name') for c in get(doc.body, 'spec.volumeClaimTemplates') or []]
        return [Pod(doc, get(doc.body, 'spec.template.metadata.labels'), get(doc.body, 'spec.template.spec'), claims)]
    if doc.kind == 'Fleet':
        return [Pod(doc, get(doc.body, 'spec.template.spec.template.metadata.labels'),
                    get(doc.body, 'spec.template.spec.template.spec'))]
    if doc.kind == 'GameServer':
        return [Pod(doc, get(doc.body, 'spec.template.metadata.labels'), get(doc.body, 'spec.template.spec'))]
    return []


def selects(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def selected(ctx, selector):
    return [p for p in ctx.pods if selects(selector, p.labels)]


def label_text(selector):
    return ', '.join(f'{k}={v}' for k, v in sorted((selector or {}).items()))


# ---- Pods --------------------------------------------------------------------------

def check_volumes(ctx, pod):
    r = ctx.report
    volumes = {v.get('name'): v for v in pod.spec.get('volumes') or []}
    for name, v in volumes.items():
        if 'configMap' in v:
            cm = v['configMap'].get('name')
            if r.check(cm in ctx.config_maps, pod.doc, 'missing-configmap', f'volume {name} names ConfigMap {cm}, which no manifest defines'):
                for item in v['configMap'].get('items') or []:
                    r.check(item.get('key') in ctx.config_maps[cm], pod.doc, 'missing-key', f'ConfigMap {cm} has no key {item.get("key")}')
        if 'secret' in v:
            s = v['secret'].get('secretName')
            r.check(s in ctx.secrets, pod.doc, 'missing-secret', f'volume {name} names Secret {s}, which nothing defines')
    for c in pod.containers():
        for m in c.get('volumeMounts') or []:
            r.check(m.get('name') in volumes or m.get('name') in pod.claims, pod.doc, 'missing-volume',
                    f'container {c.get("name")} mounts {m.get("name")}, which is neither a volume nor a volumeClaimTemplate')


def mounted_files(ctx, pod, container):
    """Paths a container sees from its ConfigMap mounts, as {path: True}."""
    volumes = {v.get('name'): v for v in pod.spec.get('volumes') or []}
    files = {}
    for m in container.get('volumeMounts') or []:
        v = volumes.get(m.get('name')) or {}
        data = ctx.config_maps.get((v.get('configMap') or {}).get('name'))
        if data is not None:
            for key in data:
                files[m['mountPath'].rstrip('/') + '/' + key] = True
    return files, [m.get('mountPath', '').rstrip('/') + '/' for m in container.get('volumeMounts') or []
                   if 'configMap' in (volumes.get(m.get('name')) or {})]


def check_commands(ctx, pod, container):
    files, prefixes = mounted_files(ctx, pod, container)
    for word in (container.get('command') or []) + (container.get('args') or []):
        if isinstance(word, str) and any(word.startswith(p) for p in prefixes):
            ctx.report.check(word in files, pod.doc, 'missing-key',
                             f'container {container.get("name")} runs {word}, which its ConfigMap mount does not provide')


def check_probes(ctx, pod, container):
    names = {p.get('name') for p in container.get('ports') or []}
    numbers = {p.get('containerPort') for p in container.get('ports') or []}
    for probe in ('startupProbe', 'readinessProbe', 'livenessProbe'):
        spec = container.get(probe)
        if not spec:
            continue
        for action in ('grpc', 'tcpSocket', 'httpGet'):
            if action not in spec:
                continue
            port = spec[action].get('port')
            # grpc probes take a number only; the others a number or a name.
            ok = port in numbers if action == 'grpc' else (port in names or port in numbers)
            ctx.report.check(ok, pod.doc, 'probe-port',
                             f'container {container.get("name")} {probe}.{action}.port {port} is not a declared container port')


def is_arbiter(container):
    return 'arbiter' in str(container.get('image', '')).split('/')[-1].split(':')[0]


def check_arbiter_container(ctx, pod, container):
    for arg in container.get('args') or []:
        m = re.fullmatch(r'--(\w+)(=.*)?', str(arg))
        ok = m is not None and m.group(1) in ctx.flags
        ctx.report.check(ok, pod.doc, 'unknown-flag', f'container {container.get("name")} passes {arg}, which arbiter-server does not accept')
    for env in container.get('env') or []:
        name = env.get('name', '')
        if name.startswith('ARBITER_'):
            ctx.report.check(name in ctx.variables, pod.doc, 'unknown-variable',
                             f'container {container.get("name")} sets {name}, which docker/entrypoint.sh does not read')


def check_pods(ctx):
    for pod in ctx.pods:
        check_volumes(ctx, pod)
        for c in pod.containers():
            ctx.report.check(bool(c.get('name')) and bool(c.get('image')), pod.doc, 'missing-field', 'every container needs a name and an image')
            requests = (c.get('resources') or {}).get('requests') or {}
            ctx.report.check('cpu' in requests and 'memory' in requests, pod.doc, 'missing-resources',
                             f'container {c.get("name")} requests no cpu or no memory (size them from scripts/bench-fleet.sh)')
            check_probes(ctx, pod, c)
            check_commands(ctx, pod, c)
            if is_arbiter(c):
                check_arbiter_container(ctx, pod, c)


# ---- What selects pods ---------------------------------------------------------------

def check_workload_selectors(ctx):
    for pod in ctx.pods:
        if pod.doc.kind in ('StatefulSet', 'Deployment'):
            sel = ctx.get(pod.doc.body, 'spec.selector.matchLabels')
            ctx.report.check(selects(sel, pod.labels), pod.doc, 'selector-mismatch',
                             f'spec.selector ({label_text(sel)}) does not match the pod template labels ({label_text(pod.labels)})')


def check_services(ctx):
    for svc in ctx.of_kind('Service'):
        sel = ctx.get(svc.body, 'spec.selector')
        pods = selected(ctx, sel)
        if not ctx.report.check(bool(pods), svc, 'selector-mismatch', f'selector ({label_text(sel)}) matches no pod template'):
            continue
        for port in ctx.get(svc.body, 'spec.ports') or []:
            target = port.get('targetPort', port.get('port'))
            ok = all(any(target in (p.get('name'), p.get('containerPort')) for p in pod.ports()) for pod in pods)
            ctx.report.check(ok, svc, 'target-port', f'targetPort {target} is not a port of every pod it selects')


def check_statefulsets(ctx):
    services = {s.name: s for s in ctx.of_kind('Service')}
    for sts in ctx.of_kind('StatefulSet'):
        name = ctx.get(sts.body, 'spec.serviceName')
        svc = services.get(name)
        if not ctx.report.check(svc is not None, sts, 'missing-service', f'serviceName {name} names no Service'):
            continue
        ctx.report.check(ctx.get(svc.body, 'spec.clusterIP') == 'None', sts, 'not-headless',
                         f'Service {name} must be headless (clusterIP: None) for per-pod DNS names')
        labels = ctx.get(sts.body, 'spec.template.metadata.labels') or {}
        ctx.report.check(selects(ctx.get(svc.body, 'spec.selector'), labels), sts, 'selector-mismatch',
                         f'Service {name} does not select this StatefulSet\'s pods')


def check_budgets(ctx):
    for pdb in ctx.of_kind('PodDisruptionBudget'):
        sel = ctx.get(pdb.body, 'spec.selector.matchLabels')
        ctx.report.check(bool(selected(ctx, sel)), pdb, 'selector-mismatch', f'selector ({label_text(sel)}) matches no pod template')


def check_agones(ctx):
    for doc in ctx.of_kind('Fleet') + ctx.of_kind('GameServer'):
        gs = ctx.get(doc.body, 'spec.template.spec') if doc.kind == 'Fleet' else doc.body.get('spec')
        pod = pods_of(doc, ctx.get)[0]
        containers = {c.get('name'): c for c in pod.containers()}
        main = gs.get('container') or (next(iter(containers)) if len(containers) == 1 else None)
        if not ctx.report.check(main in containers, doc, 'missing-container', f'spec.container {main} names no container of the template'):
            continue
        for port in gs.get('ports') or []:
            owner = containers.get(port.get('container', main)) or {}
            declared = {p.get('containerPort') for p in owner.get('ports') or []}
            ctx.report.check(port.get('containerPort') in declared, doc, 'agones-port',
                             f'port {port.get("name")}: containerPort {port.get("containerPort")} is not declared by its container')
            ctx.report.check(port.get('portPolicy', 'Dynamic') in PORT_POLICIES, doc, 'agones-port', f'port {port.get("name")}: unknown portPolicy')
            ctx.report.check(port.get('protocol', 'UDP') in AGONES_PROTOCOLS, doc, 'agones-port', f'port {port.get("name")}: unknown protocol')
        unknown = set(gs.get('health') or {}) - AGONES_HEALTH
        ctx.report.check(not unknown, doc, 'agones-health', f'unknown health fields {sorted(unknown)}')


def check_all(ctx):
    check_pods(ctx)
    check_workload_selectors(ctx)
    check_services(ctx)
    check_statefulsets(ctx)
    check_budgets(ctx)
    check_agones(ctx)


# ---- The proxy's routing ----------------------------------------------------------------

def expected_upstreams(ctx):
    """`<statefulset>-<i>.<service>:<port>` for every pod of every StatefulSet."""
    services = {s.name: s for s in ctx.of_kind('Service')}
    hosts = set()
    for sts in ctx.of_kind('StatefulSet'):
        svc = services.get(ctx.get(sts.body, 'spec.serviceName'))
        if svc is None:
            continue
        for port in ctx.get(svc.body, 'spec.ports') or []:
            for i in range(int(ctx.get(sts.body, 'spec.replicas') or 1)):
                hosts.add(f'{sts.name}-{i}.{svc.name}:{port.get("port")}')
    return hosts


def check_nginx(ctx, template_text, server_params):
    want = nginx_conf.routing(nginx_conf.parse(nginx_conf.render_template(template_text)))
    for cm in ctx.of_kind('ConfigMap'):
        text = (cm.body.get('data') or {}).get('nginx.conf')
        if text is None:
            continue
        try:
            conf = nginx_conf.parse(text)
            got = nginx_conf.routing(conf)
        except (ValueError, KeyError) as e:
            ctx.report.check(False, cm, 'nginx-parse', f'nginx.conf: {e}')
            continue
        for part in ('upstream', 'server', 'access_log'):
            ctx.report.check(got[part] == want[part], cm, 'nginx-drift',
                             f'nginx.conf: the {part} directives differ from docker/nginx/arbiter-fleet.conf.template')
        servers = nginx_conf.upstream_servers(conf)
        hosts = {address for address, _ in servers}
        expected = expected_upstreams(ctx)
        ctx.report.check(hosts == expected and len(servers) == len(hosts), cm, 'nginx-upstream',
                         f'nginx.conf upstream servers {sorted(hosts)} are not the StatefulSet pods {sorted(expected)}')
        for address, params in servers:
            ctx.report.check(params == server_params, cm, 'nginx-upstream',
                             f'server {address} has {params}, docker/cluster.sh uses {server_params}')
        check_listen(ctx, cm, conf)


def check_listen(ctx, cm, conf):
    """The listen port is a container port of the pods mounting this ConfigMap."""
    server = nginx_conf.find(nginx_conf.find(conf, 'http')[0][2], 'server')[0][2]
    ports = {int(d[1][0].rsplit(':', 1)[-1]) for d in nginx_conf.find(server, 'listen')}
    for pod in ctx.pods:
        mounts = [v for v in pod.spec.get('volumes') or [] if (v.get('configMap') or {}).get('name') == cm.name]
        if mounts:
            declared = {p.get('containerPort') for p in pod.ports()}
            ctx.report.check(ports <= declared, cm, 'nginx-listen',
                             f'nginx listens on {sorted(ports)}, {pod.doc.kind}/{pod.doc.name} declares {sorted(declared)}')
