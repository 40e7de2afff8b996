"""The PEP 517 build backend of `pip install ./client/python`.

It builds one pure-Python wheel: the arbiter_client package plus the gRPC
stubs of arbiter.v1, generated at build time from the repository's proto/
by the machine's protoc and grpc_python_plugin, exactly as the CMake build
generates them into <build>/client/python/gen (client/python/CMakeLists.txt:
generated rather than committed, so that protoc's output matches the
protobuf runtime beside it).

Standard library only and no build requirements, so pip needs no package
index to build it. Where the tools and the protos are:
  ARBITER_PROTOC               protoc (default: `protoc` on PATH)
  ARBITER_GRPC_PYTHON_PLUGIN   grpc_python_plugin (default: on PATH)
  ARBITER_PROTO_DIR            the proto/ folder (default: ../../proto from
                               this project, as pip builds a local folder in
                               place)
"""

import base64
import hashlib
import os
import shutil
import subprocess
import tempfile
import tomllib
import zipfile

PROJECT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROTOS = ["arbiter/v1/geometry.proto", "arbiter/v1/arbiter.proto"]


def _project():
    with open(os.path.join(PROJECT_DIR, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _dist_name(project):
    return project["name"].replace("-", "_")


def _tool(variable, name):
    path = os.environ.get(variable) or shutil.which(name)
    if not path:
        raise RuntimeError(f"{name} not found: install it (apt-get install protobuf-compiler protobuf-compiler-grpc) "
                           f"or set {variable}")
    return path


def _generate_stubs(out_dir):
    """arbiter/v1/*_pb2.py and *_pb2_grpc.py under out_dir."""
    proto_dir = os.environ.get("ARBITER_PROTO_DIR") or os.path.join(PROJECT_DIR, "..", "..", "proto")
    if not os.path.isfile(os.path.join(proto_dir, PROTOS[1])):
        raise RuntimeError(f"no {PROTOS[1]} under {os.path.abspath(proto_dir)}: build from the repository's "
                           "client/python, or set ARBITER_PROTO_DIR")
    protoc = _tool("ARBITER_PROTOC", "protoc")
    plugin = _tool("ARBITER_GRPC_PYTHON_PLUGIN", "grpc_python_plugin")
    subprocess.run([protoc, f"--python_out={out_dir}", f"--grpc_out={out_dir}", f"--plugin=protoc-gen-grpc={plugin}",
                    f"-I{proto_dir}", *PROTOS], check=True)


def _metadata(project):
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}"]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def _files(stub_dir):
    """(path in the wheel, path on disk) of every file the wheel holds."""
    package = os.path.join(PROJECT_DIR, "arbiter_client")
    for name in sorted(os.listdir(package)):
        if name.endswith(".py"):
            yield f"arbiter_client/{name}", os.path.join(package, name)
    for root, _, names in sorted(os.walk(stub_dir)):
        for name in sorted(names):
            if name.endswith(".py"):
                full = os.path.join(root, name)
                yield os.path.relpath(full, stub_dir).replace(os.sep, "/"), full


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    dist = f"{_dist_name(project)}-{project['version']}"
    wheel_name = f"{dist}-py3-none-any.whl"
    with tempfile.TemporaryDirectory() as stubs:
        _generate_stubs(stubs)
        contents = [(path, open(disk, "rb").read()) for path, disk in _files(stubs)]
    contents.append((f"{dist}.dist-info/METADATA", _metadata(project).encode()))
    contents.append((f"{dist}.dist-info/WHEEL",
                     b"Wheel-Version: 1.0\nGenerator: arbiter_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
    contents.append((f"{dist}.dist-info/top_level.txt", b"arbiter\narbiter_client\n"))
    record = [_record_line(path, data) for path, data in contents] + [f"{dist}.dist-info/RECORD,,"]
    contents.append((f"{dist}.dist-info/RECORD", ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in contents:
            info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return wheel_name
