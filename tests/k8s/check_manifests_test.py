#!/usr/bin/env python3
"""check_manifests.py against broken copies of docker/k8s/: each test
breaks one reference and expects the checker to name it, and the shipped
manifests to pass."""

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, HERE)
import check_manifests  # noqa: E402


class BrokenManifests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='arbiter-k8s-')
        self.dir = os.path.join(self.tmp, 'k8s')
        shutil.copytree(os.path.join(ROOT, 'docker', 'k8s'), self.dir)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def edit(self, name, change, kind=None):
        """Applies `change` to the documents of `name` (those of `kind` if given)."""
        path = os.path.join(self.dir, name)
        with open(path, encoding='utf-8') as f:
            docs = [d for d in yaml.safe_load_all(f) if d is not None]
        for d in docs:
            if kind is None or d.get('kind') == kind:
                change(d)
        with open(path, 'w', encoding='utf-8') as f:
            yaml.safe_dump_all(docs, f, sort_keys=False)

    def problems(self):
        _, report = check_manifests.check(ROOT, self.dir)
        return report.problems

    def assertProblem(self, code, *words):
        found = [p for p in self.problems() if f'[{code}]' in p and all(w in p for w in words)]
        self.assertTrue(found, f'no [{code}] problem naming {words}; got {self.problems()}')

    @staticmethod
    def server(doc):
        return doc['spec']['template']['spec']['containers'][0]

    def test_the_shipped_manifests_pass(self):
        self.assertEqual(self.problems(), [])

    def test_a_mistyped_service_selector_is_named(self):
        self.edit('arbiter-service.yaml', lambda d: d['spec']['selector'].update({'app.kubernetes.io/component': 'sever'}))
        self.assertProblem('selector-mismatch', 'Service/arbiter', 'component=sever')

    def test_a_statefulset_selector_that_misses_its_pods_is_named(self):
        self.edit('arbiter-statefulset.yaml', lambda d: d['spec']['selector']['matchLabels'].update({'app.kubernetes.io/name': 'arbitre'}))
        self.assertProblem('selector-mismatch', 'StatefulSet/arbiter', 'name=arbitre')

    def test_a_mount_of_a_missing_volume_is_named(self):
        self.edit('arbiter-statefulset.yaml', lambda d: d['spec']['template']['spec'].pop('volumes'))
        self.assertProblem('missing-volume', 'StatefulSet/arbiter', 'tokens')

    def test_a_renamed_claim_template_leaves_the_journal_mount_dangling(self):
        self.edit('arbiter-statefulset.yaml', lambda d: d['spec']['volumeClaimTemplates'][0]['metadata'].update({'name': 'journal'}))
        self.assertProblem('missing-volume', 'mounts data')

    def test_a_missing_configmap_is_named(self):
        self.edit('nginx-deployment.yaml', lambda d: d['spec']['template']['spec']['volumes'][0]['configMap'].update({'name': 'nginx-conf'}),
                  kind='Deployment')
        self.assertProblem('missing-configmap', 'Deployment/arbiter-proxy', 'nginx-conf')

    def test_a_command_the_configmap_does_not_hold_is_named(self):
        self.edit('nginx-configmap.yaml', lambda d: d['data'].pop('run-nginx.sh'))
        self.assertProblem('missing-key', '/etc/nginx/arbiter/run-nginx.sh')

    def test_a_headless_service_that_is_not_headless_is_named(self):
        self.edit('arbiter-service.yaml', lambda d: d['spec'].pop('clusterIP'))
        self.assertProblem('not-headless', 'StatefulSet/arbiter')

    def test_a_wrong_service_name_is_named(self):
        self.edit('arbiter-statefulset.yaml', lambda d: d['spec'].update({'serviceName': 'arbiter-headless'}))
        self.assertProblem('missing-service', 'arbiter-headless')

    def test_a_probe_on_an_undeclared_port_is_named(self):
        self.edit('arbiter-statefulset.yaml', lambda d: self.server(d)['readinessProbe']['grpc'].update({'port': 50052}))
        self.assertProblem('probe-port', 'readinessProbe.grpc.port 50052')

    def test_a_service_target_port_no_pod_declares_is_named(self):
        self.edit('nginx-deployment.yaml', lambda d: d['spec']['ports'][0].update({'targetPort': 'http'}), kind='Service')
        self.assertProblem('target-port', 'Service/arbiter-proxy', 'targetPort http')

    def test_a_container_without_resource_requests_is_named(self):
        self.edit(os.path.join('agones', 'fleet.yaml'),
                  lambda d: d['spec']['template']['spec']['template']['spec']['containers'][0].pop('resources'))
        self.assertProblem('missing-resources', 'Fleet/arbiter-match', 'arbiter-server')

    def test_a_flag_the_server_does_not_accept_is_named(self):
        self.edit('arbiter-statefulset.yaml', lambda d: self.server(d)['args'].append('--max_world=8'))
        self.assertProblem('unknown-flag', '--max_world=8')

    def test_a_variable_the_entrypoint_does_not_read_is_named(self):
        self.edit('arbiter-statefulset.yaml', lambda d: self.server(d)['env'].append({'name': 'ARBITER_DATADIR', 'value': '/x'}))
        self.assertProblem('unknown-variable', 'ARBITER_DATADIR')

    def test_an_unknown_kind_and_a_missing_field_are_named(self):
        self.edit('arbiter-pdb.yaml', lambda d: d.update({'apiVersion': 'policy/v1beta2'}))
        self.edit('arbiter-service.yaml', lambda d: d['spec'].pop('ports'))
        self.assertProblem('unknown-kind', 'policy/v1beta2')
        self.assertProblem('missing-field', 'Service/arbiter', 'spec.ports')

    def test_upstream_servers_that_miss_a_pod_are_named(self):
        self.edit('arbiter-statefulset.yaml', lambda d: d['spec'].update({'replicas': 4}))
        self.assertProblem('nginx-upstream', 'arbiter-3.arbiter:50051')

    def test_upstream_servers_on_the_wrong_port_are_named(self):
        def port(d):
            d['data']['nginx.conf'] = d['data']['nginx.conf'].replace('arbiter-1.arbiter:50051', 'arbiter-1.arbiter:5051')
        self.edit('nginx-configmap.yaml', port)
        self.assertProblem('nginx-upstream', 'arbiter-1.arbiter:5051')

    def test_routing_that_drifted_from_the_template_is_named(self):
        def drift(d):
            d['data']['nginx.conf'] = d['data']['nginx.conf'].replace('$http_x_arbiter_world', '$http_x_world')
        self.edit('nginx-configmap.yaml', drift)
        self.assertProblem('nginx-drift', 'upstream directives')

    def test_a_retry_on_another_instance_is_drift(self):
        def drift(d):
            d['data']['nginx.conf'] = d['data']['nginx.conf'].replace('grpc_next_upstream off;', 'grpc_next_upstream error;')
        self.edit('nginx-configmap.yaml', drift)
        self.assertProblem('nginx-drift', 'server directives')

    def test_an_agones_port_its_container_does_not_declare_is_named(self):
        self.edit(os.path.join('agones', 'fleet.yaml'), lambda d: d['spec']['template']['spec']['ports'][0].update({'containerPort': 7777}))
        self.assertProblem('agones-port', 'Fleet/arbiter-match', '7777')

    def test_an_agones_container_that_does_not_exist_is_named(self):
        self.edit(os.path.join('agones', 'fleet.yaml'), lambda d: d['spec']['template']['spec'].update({'container': 'server'}))
        self.assertProblem('missing-container', 'Fleet/arbiter-match')

    def test_an_image_the_kustomization_does_not_rename_is_named(self):
        kubectl = shutil.which('kubectl')
        if kubectl is None:
            self.skipTest('no kubectl to render the Kustomization with')
        self.edit('arbiter-statefulset.yaml', lambda d: self.server(d).update({'image': 'arbiter-server:latest'}))
        _, report = check_manifests.check(ROOT, self.dir, kubectl)
        self.assertTrue([p for p in report.problems if '[kustomize]' in p and 'registry.example.com/arbiter:latest' in p],
                        report.problems)

    def test_a_manifest_left_out_of_the_kustomization_is_named(self):
        def drop(d):
            d['resources'].remove('arbiter-pdb.yaml')
        self.edit('kustomization.yaml', drop)
        self.assertProblem('not-in-kustomization', 'arbiter-pdb.yaml')


class ConfigMapFiles(unittest.TestCase):
    """The ConfigMap's files as their own programs read them: nginx -t on
    nginx.conf (the upstream names, which resolve only in the cluster,
    replaced by loopback addresses) and sh -n on run-nginx.sh."""

    def setUp(self):
        with open(os.path.join(ROOT, 'docker', 'k8s', 'nginx-configmap.yaml'), encoding='utf-8') as f:
            self.data = yaml.safe_load(f)['data']
        self.tmp = tempfile.mkdtemp(prefix='arbiter-k8s-nginx-')

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_nginx_accepts_the_configuration(self):
        nginx = self.nginx_or_skip()
        conf = re.sub(r'server arbiter-(\d+)\.arbiter:50051', lambda m: f'server 127.0.0.{int(m.group(1)) + 1}:50051',
                      self.data['nginx.conf'])
        self.assertNotIn('arbiter-0.arbiter', conf)
        conf = conf.replace('/tmp/', self.tmp + '/')
        path = os.path.join(self.tmp, 'nginx.conf')
        with open(path, 'w', encoding='utf-8') as f:
            f.write(conf)
        run = subprocess.run([nginx, '-t', '-q', '-p', self.tmp, '-c', path], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)

    def nginx_or_skip(self):
        nginx = shutil.which('nginx', path='/usr/sbin:' + os.environ.get('PATH', ''))
        if nginx is None:
            self.skipTest('nginx is not installed (scripts/install-deps.sh installs it)')
        return nginx

    def local_conf(self, port):
        """The ConfigMap's nginx.conf for this machine: upstream names that
        resolve here (localhost), paths in the test's folder, `port`."""
        conf = re.sub(r'server arbiter-\d+\.arbiter:50051', 'server localhost:50051', self.data['nginx.conf'])
        conf = conf.replace('listen 50051 http2;', f'listen 127.0.0.1:{port} http2;')
        self.assertNotIn('arbiter-0.arbiter', conf)
        self.assertIn(f':{port} http2', conf)
        return conf.replace('/tmp/', self.tmp + '/')

    @staticmethod
    def free_port():
        with socket.socket() as s:
            s.bind(('127.0.0.1', 0))
            return s.getsockname()[1]

    @staticmethod
    def wait_listening(port, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(('127.0.0.1', port)) == 0:
                    return True
            time.sleep(0.1)
        return False

    def test_run_nginx_reloads_when_the_configuration_changes(self):
        self.nginx_or_skip()
        conf = os.path.join(self.tmp, 'nginx.conf')
        script = os.path.join(self.tmp, 'run-nginx.sh')
        with open(script, 'w', encoding='utf-8') as f:
            f.write(self.data['run-nginx.sh'])
        first, second = self.free_port(), self.free_port()
        with open(conf, 'w', encoding='utf-8') as f:
            f.write(self.local_conf(first))
        env = dict(os.environ, ARBITER_NGINX_CONF=conf, PATH='/usr/sbin:' + os.environ.get('PATH', ''))
        run = subprocess.Popen(['sh', script], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            self.assertTrue(self.wait_listening(first, 10), 'nginx did not start on the ConfigMap configuration')
            # What kubelet does when the ConfigMap is edited: a new file in place.
            with open(conf + '.new', 'w', encoding='utf-8') as f:
                f.write(self.local_conf(second))
            os.replace(conf + '.new', conf)
            self.assertTrue(self.wait_listening(second, 20), 'run-nginx.sh did not reload the changed configuration')
        finally:
            run.terminate()
            output, _ = run.communicate(timeout=20)
        self.assertEqual(run.returncode, 0, output)
        self.assertFalse(self.wait_listening(second, 0.5), 'nginx still listens after run-nginx.sh ended')

    def test_the_start_script_is_valid_sh(self):
        path = os.path.join(self.tmp, 'run-nginx.sh')
        with open(path, 'w', encoding='utf-8') as f:
            f.write(self.data['run-nginx.sh'])
        run = subprocess.run(['sh', '-n', path], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)


if __name__ == '__main__':
    unittest.main()
