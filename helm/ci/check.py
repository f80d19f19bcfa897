#!/usr/bin/env python3
"""Renders the chart with Helm's own engine (helm-python-sdk, the Helm Go SDK offline)
for every helm/ci/*-values.yaml, lints it strictly, validates every object with
kubernetes-validate --strict against two Kubernetes versions, compares the render with
the golden file kept beside it, and checks that values missing a required setting fail
to render naming it. UPDATE_GOLDEN=1 rewrites the golden files.

The boot test (tests/tests/chart_boot.rs) starts the binary exactly as these golden
renders describe, so what is compared here is what is booted there.
"""

import os
import subprocess
import sys
from pathlib import Path

import helm_python as helm
import yaml

CI = Path(__file__).resolve().parent
CHART = CI.parent / "neuralis"
GOLDEN = CI / "golden"
RELEASE, NAMESPACE = "ci", "neuralis"
KUBERNETES = ["1.29.0", "1.37.0"]

results = {"passed": 0, "failed": 0}


def outcome(name, ok, detail=""):
    results["passed" if ok else "failed"] += 1
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail and not ok else ''}")


def render(values):
    """The release's manifests, one YAML stream in template order (NOTES aside)."""
    with helm.Chart.load(str(CHART)) as chart:
        chart.validate_schema(values)
        manifests = chart.render(values=values, name=RELEASE, namespace=NAMESPACE, is_install=True)
    documents = []
    for path in sorted(manifests):
        if path.endswith("NOTES.txt"):
            continue
        for document in manifests[path].split("\n---"):
            body = document.strip().removeprefix("---").strip()
            if body and yaml.safe_load(body) is not None:
                documents.append(f"# Source: {path}\n{body}\n")
    return "---\n".join(documents)


def lint(values):
    report = helm.lint(str(CHART), values, strict=True, namespace=NAMESPACE)
    problems = [m for m in report["messages"] if m["severity"] >= 2] + [
        {"error": e} for e in report["errors"]
    ]
    return [f"{m.get('path', '')} {m['error']}" for m in problems]


def validate(path):
    failures = []
    for version in KUBERNETES:
        run = subprocess.run(
            [str(Path(sys.executable).parent / "kubernetes-validate"), "--strict", "--quiet",
             "-k", version, str(path)],
            capture_output=True, text=True,
        )
        if run.returncode != 0:
            failures.append(f"kubernetes {version}: {run.stdout}{run.stderr}")
    return failures


def check_values_file(values_file):
    name = values_file.name.removesuffix("-values.yaml")
    values = yaml.safe_load(values_file.read_text()) or {}
    try:
        rendered = render(values)
    except helm.HelmError as error:
        outcome(f"{name}: renders", False, str(error))
        return
    outcome(f"{name}: renders", True)
    problems = lint(values)
    outcome(f"{name}: lints strictly", not problems, "; ".join(problems))
    golden = GOLDEN / f"{name}.yaml"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(rendered)
    same = golden.is_file() and golden.read_text() == rendered
    outcome(f"{name}: matches {golden.relative_to(CI.parent.parent)}", same,
            "differs (UPDATE_GOLDEN=1 make chart rewrites it; review the diff)")
    failures = validate(golden if same else write_temp(name, rendered))
    outcome(f"{name}: kubernetes-validate --strict {', '.join(KUBERNETES)}", not failures,
            "; ".join(failures))


def write_temp(name, text):
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"neuralis-chart-{os.getpid()}-{name}.yaml"
    path.write_text(text)
    return path


# Values that must not render, and the words the failure must contain.
REFUSED = [
    ("mode is an enum", {"mode": "split"}, ["/mode", "all-in-one", "distributed"]),
    ("distributed mode without the index URL",
     {"secret": {"values": {"NEURALIS__POLICY__STORE__URL": "postgres://p", "NEURALIS__SYNC__BUS__URL": "redis://r",
                            "NEURALIS__IDENTITY__KEYS__SECRET": "x" * 40}}},
     ["NEURALIS__SYNC__INDEX__URL"]),
    ("distributed mode without the verification key",
     {"secret": {"values": {"NEURALIS__SYNC__INDEX__URL": "postgres://p", "NEURALIS__POLICY__STORE__URL": "postgres://p",
                            "NEURALIS__SYNC__BUS__URL": "redis://r"}}},
     ["NEURALIS__IDENTITY__KEYS__SECRET"]),
    ("a JWKS file without key files",
     {"secret": {"existingSecret": "s"}, "config": {"identity": {"keys": {"kind": "jwks_file", "path": "/k"}}}},
     ["keyFiles"]),
    ("TLS without its Secret", {"mode": "all-in-one", "tls": {"enabled": True}}, ["tls.existingSecret"]),
    ("pools at the autoscalers' maxima over the server's connections",
     {"secret": {"values": {"NEURALIS__SYNC__INDEX__URL": "postgres://p", "NEURALIS__POLICY__STORE__URL": "postgres://p",
                            "NEURALIS__SYNC__BUS__URL": "redis://r", "NEURALIS__IDENTITY__KEYS__SECRET": "x" * 40,
                            "NEURALIS__SERVICE_IDENTITY__KEYS__SECRET": "y" * 40}},
      "policy": {"autoscaling": {"maxReplicas": 30}}},
     ["database.maxConnections", "= 138"]),
    ("a secret under a name the binary does not read",
     {"mode": "all-in-one", "secret": {"values": {"IDENTITY_SECRET": "x"}}}, ["IDENTITY_SECRET"]),
] + [
    # A misspelt key fails the render naming it, at every level (values.schema.json is
    # closed): a typo is never silently ignored.
    (f"a misspelt key: {title}", {"mode": "all-in-one", **values}, [word])
    for title, values, word in [
        ("replicaCount", {"replicaCount": 3}, "replicaCount"),
        ("polcy", {"polcy": {"replicas": 3}}, "polcy"),
        ("policy.replica", {"policy": {"replica": 3}}, "replica"),
        ("sync.strategy.rollingUpdate.maxSurg",
         {"sync": {"strategy": {"rollingUpdate": {"maxSurg": 1}}}}, "maxSurg"),
        ("discovery.autoscaling.maxReplica", {"discovery": {"autoscaling": {"maxReplica": 4}}}, "maxReplica"),
        ("allInOne.persistence.sise", {"allInOne": {"persistence": {"sise": "2Gi"}}}, "sise"),
        ("image.pullpolicy", {"image": {"repository": "r", "pullpolicy": "Always"}}, "pullpolicy"),
        ("metrics.serviceMonitor.intervall", {"metrics": {"serviceMonitor": {"intervall": "1m"}}}, "intervall"),
        ("serviceAccount.annotation", {"serviceAccount": {"annotation": {}}}, "annotation"),
    ]
]


def check_refusals():
    for title, values, words in REFUSED:
        try:
            render(values)
            outcome(f"refused: {title}", False, "rendered")
        except helm.HelmError as error:
            message = str(error)
            missing = [w for w in words if w not in message]
            outcome(f"refused: {title}", not missing, f"message lacks {missing}: {message}")


def main():
    helm.disable_logging()
    files = sorted(CI.glob("*-values.yaml"))
    if not files:
        outcome("values files found", False, str(CI))
    for values_file in files:
        check_values_file(values_file)
    check_refusals()
    print(f"chart: {results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
