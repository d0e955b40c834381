#!/usr/bin/env python3
"""Regenerates src/doorman_client/_generated/ from the OpenAPI document a Doorman serves.

    python scripts/generate_types.py [--check] [URL or file]
    (default source: http://127.0.0.1:8080/v1/openapi.json)

Three files come out of one document, so the client and the contract cannot drift apart:

- ``answers.py``: pydantic v2 models of what Doorman answers (verdicts, stored events, pages,
  errors, health, the ``review.resolved`` webhook), each with ``extra='allow'`` so fields a later
  Doorman adds are kept. They are made from a copy of the document with the server's own limits
  (lengths, patterns, ranges) left out: the client checks the types and required fields of an
  answer, and a later server that loosens a limit must not make its answers unreadable.
- ``requests.py``: TypedDicts of what the caller sends. The verdict request becomes one TypedDict
  per event type, made from the document's ``VerdictRequest``: ``ip`` required where its
  ``allOf`` ``if``/``then`` requires it (the generator does not read conditionals), and
  ``payment`` offered only on ``checkout_attempt`` (contract 2.1: ignored on every other type).
  An optional field also takes None, which the client leaves out of the JSON.
- ``known_values.py``: the known values of the open sets (``x-service-known-values``), the
  event types whose ``ip`` is required, and the closed sets as ``Literal`` types.

The models are written by datamodel-code-generator at the version pinned in
requirements-dev.txt (another version may lay out the same types differently, so the script
refuses to run with one). With ``--check`` nothing is written; the script exits 1 naming each
checked-in file that differs from what the document generates ("... is out of date").
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import subprocess
import sys
import tempfile
import urllib.request
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import cast

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "doorman_client" / "_generated"
DEFAULT_SOURCE = "http://127.0.0.1:8080/v1/openapi.json"

Json = dict[str, object]

# What the client reads from Doorman. The browser's device exchange (publishable key) is not a
# server-side client's business, so DeviceRequest/DeviceResponse are left out.
ANSWER_SCHEMAS = (
    "VerdictResponse",
    "Reason",
    "PolicyVersion",
    "StoredEvent",
    "EventList",
    "FeedbackResponse",
    "Error",
    "ValidationIssue",
    "Health",
    "HealthCheck",
    "ReviewResolvedWebhook",
)
# What the caller sends, besides the per-event-type verdict requests.
REQUEST_SCHEMAS = ("Payment", "FeedbackSubject", "FeedbackRequest", "AttachUserRequest")
# Contract 2.1: `payment` is "used for checkout_attempt; ignored on other event types". The
# document says so only in words, so the rule is named here.
PAYMENT_EVENT_TYPES = ("checkout_attempt",)
# The server's limits, left out of the answers' models (see the module's docstring).
LIMIT_KEYWORDS = (
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "propertyNames",
)
# The same options for both runs, apart from the output model type; `builtin` formatting keeps
# black and isort out of the output's reproducibility.
CODEGEN_OPTIONS = (
    "--input-file-type",
    "openapi",
    "--target-python-version",
    "3.10",
    "--use-standard-collections",
    "--use-union-operator",
    "--enum-field-as-literal",
    "all",
    "--use-object-type",
    "--disable-timestamp",
    "--formatters",
    "builtin",
    "--keep-model-order",
    "--use-annotated",
    "--field-constraints",
    "--collapse-root-models",
    "--use-schema-description",
    "--use-field-description",
)


def pinned_generator_version() -> str:
    for line in (ROOT / "requirements-dev.txt").read_text().splitlines():
        name, _, pinned = line.partition("==")
        if name.strip().lower() == "datamodel-code-generator":
            return pinned.split(";")[0].split("#")[0].strip()
    raise SystemExit("[generate] requirements-dev.txt does not pin datamodel-code-generator")


def read_document(source: str) -> Json:
    if re.match(r"^https?://", source):
        with urllib.request.urlopen(source, timeout=10) as response:
            return cast(Json, json.load(response))
    return cast(Json, json.loads(Path(source).read_text()))


def schemas_of(document: Json) -> dict[str, Json]:
    components = cast(Json, document.get("components") or {})
    return cast(dict[str, Json], components.get("schemas") or {})


def pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[_.\-]", name) if part)


def without_limits(node: object) -> object:
    if isinstance(node, list):
        return [without_limits(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: Json = {}
    for key, value in node.items():
        if key in LIMIT_KEYWORDS:
            continue
        # `properties` maps names to schemas: a property may itself be called `pattern`.
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: without_limits(schema) for name, schema in value.items()}
        else:
            out[key] = without_limits(value)
    return out


def hoist_inline_objects(schemas: dict[str, Json]) -> None:
    """Gives each inline object with properties a name of its own (Reason.detail: ReasonDetail),
    instead of the generator's (Detail, Details1)."""
    for name in list(schemas):
        properties = cast(dict[str, Json], schemas[name].get("properties") or {})
        for prop, schema in properties.items():
            if schema.get("type") == "object" and "properties" in schema:
                hoisted = f"{name}{pascal(prop)}"
                schemas[hoisted] = schema
                properties[prop] = {"$ref": f"#/components/schemas/{hoisted}"}
                hoist_inline_objects({hoisted: schema})


def may_be_none(schema: Json) -> Json:
    return {"anyOf": [schema, {"type": "null"}]}


def with_optional_none(schema: Json) -> Json:
    """An optional field takes None too (left out of the JSON), so a value that may be absent,
    such as a request's User-Agent header, is passed as it is."""
    out = copy.deepcopy(schema)
    required = set(cast(list[str], out.get("required") or []))
    properties = cast(dict[str, Json], out.get("properties") or {})
    for prop in list(properties):
        if prop not in required:
            properties[prop] = may_be_none(properties[prop])
    return out


def event_types_of(document: Json) -> list[str]:
    request = schemas_of(document).get("VerdictRequest") or {}
    properties = cast(dict[str, Json], request.get("properties") or {})
    types = cast(list[str], (properties.get("event_type") or {}).get("enum") or [])
    if not types:
        raise SystemExit("[generate] VerdictRequest.event_type has no enum: the generator needs updating")
    return types


def ip_required_event_types(document: Json) -> list[str]:
    request = schemas_of(document).get("VerdictRequest") or {}
    found: list[str] = []
    for conditional in cast(list[Json], request.get("allOf") or []):
        then = cast(Json, conditional.get("then") or {})
        if "ip" not in cast(list[str], then.get("required") or []):
            continue
        condition = cast(Json, conditional.get("if") or {})
        event_type = cast(Json, cast(Json, condition.get("properties") or {}).get("event_type") or {})
        found += cast(list[str], event_type.get("enum") or [])
    if not found:
        raise SystemExit("[generate] VerdictRequest has no conditional that requires ip: the generator needs updating")
    return found


def request_document(document: Json) -> Json:
    source = schemas_of(document)
    request = source["VerdictRequest"]
    required_ip = set(ip_required_event_types(document))
    types = event_types_of(document)
    for named in PAYMENT_EVENT_TYPES:
        if named not in types:
            raise SystemExit(f"[generate] {named} is no longer an event type: PAYMENT_EVENT_TYPES needs updating")
    schemas: dict[str, Json] = {}
    variants: list[str] = []
    for event_type in types:
        name = f"{pascal(event_type)}Request"
        properties = copy.deepcopy(cast(dict[str, Json], request["properties"]))
        properties["event_type"] = {"type": "string", "enum": [event_type]}
        if event_type not in PAYMENT_EVENT_TYPES:
            properties.pop("payment", None)
        ip_rule = "required" if event_type in required_ip else "optional"
        schemas[name] = with_optional_none(
            {
                "type": "object",
                "description": f"A `{event_type}` to screen: `ip` {ip_rule}.",
                "additionalProperties": False,
                "required": ["event_type", "ip"] if event_type in required_ip else ["event_type"],
                "properties": properties,
            }
        )
        variants.append(name)
    for name in REQUEST_SCHEMAS:
        schemas[name] = with_optional_none(source[name])
    schemas["VerdictRequest"] = {
        "description": "A funnel moment to screen: one TypedDict per event type, told apart by `event_type`.",
        "oneOf": [{"$ref": f"#/components/schemas/{name}"} for name in variants],
    }
    return {"openapi": document.get("openapi", "3.1.0"), "info": document.get("info"), "paths": {}, "components": {"schemas": schemas}}


def answer_document(document: Json) -> Json:
    source = schemas_of(document)
    schemas = {name: cast(Json, without_limits(source[name])) for name in ANSWER_SCHEMAS}
    hoist_inline_objects(schemas)
    return {"openapi": document.get("openapi", "3.1.0"), "info": document.get("info"), "paths": {}, "components": {"schemas": schemas}}


def header(what: str, document: Json) -> str:
    info = cast(Json, document.get("info") or {})
    return (
        f"# GENERATED by scripts/generate_types.py from the served OpenAPI document ({what}).\n"
        "# Do not edit: run `python scripts/generate_types.py <served openapi.json URL>`; the suite\n"
        "# checks it is up to date.\n"
        f"# Contract version {info.get('version')}.\n"
    )


def codegen(derived: Json, model_type: str, workdir: Path, name: str) -> str:
    source = workdir / f"{name}.json"
    target = workdir / f"{name}.py"
    source.write_text(json.dumps(derived, indent=2))
    command = [sys.executable, "-m", "datamodel_code_generator", "--input", str(source), "--output", str(target)]
    command += ["--output-model-type", model_type, *CODEGEN_OPTIONS]
    if model_type == "pydantic_v2.BaseModel":
        command += ["--extra-fields", "allow"]
    else:
        # Without `from __future__ import annotations`, so NotRequired is seen at run time too
        # (a TypedDict's __required_keys__), not only by type checkers.
        command += ["--use-generic-container-types", "--disable-future-imports"]
    run = subprocess.run(command, capture_output=True, text=True, cwd=workdir, check=False)
    if run.returncode != 0:
        raise SystemExit(f"[generate] datamodel-codegen failed:\n{run.stderr}")
    text = target.read_text()
    # The tool's own header names the temporary file; ours names the document instead.
    return re.sub(r"\A# generated by datamodel-codegen:\n#   filename: .*\n\n", "", text)


def literal(values: list[str]) -> str:
    return "Literal[" + ", ".join(json.dumps(v) for v in values) + "]"


def known_values(document: Json) -> str:
    known = cast(dict[str, list[str]], document.get("x-service-known-values") or {})
    schemas = schemas_of(document)
    response_props = cast(dict[str, Json], schemas["VerdictResponse"].get("properties") or {})
    verdicts = cast(list[str], response_props["verdict"]["enum"])
    feedback_props = cast(dict[str, Json], schemas["FeedbackRequest"].get("properties") or {})
    outcomes = cast(list[str], feedback_props["outcome"]["enum"])
    ip_types = ip_required_event_types(document)
    lines = [
        "from __future__ import annotations",
        "",
        "from typing import Final, Literal",
        "",
        "from typing_extensions import TypeAlias",
        "",
        "# The open sets: Doorman may add values later, so the client types them as `str`; these are",
        "# the values this version knows (x-service-known-values).",
    ]
    for field, name in (
        ("error_codes", "KNOWN_ERROR_CODES"),
        ("reason_codes", "KNOWN_REASON_CODES"),
        ("recommended_actions", "KNOWN_RECOMMENDED_ACTIONS"),
        ("signal_sources", "KNOWN_SIGNAL_SOURCES"),
    ):
        values = known.get(field) or []
        lines.append(f"{name}: Final[tuple[str, ...]] = ({', '.join(json.dumps(v) for v in values)}{',' if len(values) == 1 else ''})")
    lines += [
        "",
        "# The closed sets.",
        f"EventType: TypeAlias = {literal(event_types_of(document))}",
        f"Verdict: TypeAlias = {literal(verdicts)}",
        f"FeedbackOutcome: TypeAlias = {literal(outcomes)}",
        "",
        "# The event types for which VerdictRequest requires `ip` (its allOf if/then).",
        f"EventTypeRequiringIp: TypeAlias = {literal(ip_types)}",
        f"IP_REQUIRED_EVENT_TYPES: Final[tuple[EventTypeRequiringIp, ...]] = ({', '.join(json.dumps(v) for v in ip_types)}{',' if len(ip_types) == 1 else ''})",
        "# The event types that take `payment` (contract 2.1; ignored on the others).",
        f"PAYMENT_EVENT_TYPES: Final[tuple[EventType, ...]] = ({', '.join(json.dumps(v) for v in PAYMENT_EVENT_TYPES)},)",
        "",
    ]
    return "\n".join(lines)


def generate(document: Json) -> dict[str, str]:
    with tempfile.TemporaryDirectory(prefix="doorman-generate-") as tmp:
        workdir = Path(tmp)
        answers = codegen(answer_document(document), "pydantic_v2.BaseModel", workdir, "answers")
        requests = codegen(request_document(document), "typing.TypedDict", workdir, "requests")
    return {
        "answers.py": header("datamodel-code-generator, pydantic v2 models of the answers", document) + "\n" + answers,
        "requests.py": header("datamodel-code-generator, TypedDicts of the requests", document) + "\n" + requests,
        "known_values.py": header("x-service-known-values and VerdictRequest's if/then", document) + "\n" + known_values(document),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a checked-in file differs")
    parser.add_argument("source", nargs="?", default=DEFAULT_SOURCE, help="the served openapi.json URL, or a file")
    args = parser.parse_args()

    pinned = pinned_generator_version()
    try:
        installed = version("datamodel-code-generator")
    except PackageNotFoundError:
        installed = "none"
    if installed != pinned:
        print(
            f"[generate] datamodel-code-generator {installed} is installed, {pinned} is pinned: "
            "run scripts/check.sh VENV_DIR (or pip install -r requirements-dev.txt) first",
            file=sys.stderr,
        )
        return 2

    files = generate(read_document(args.source))
    stale = 0
    for name, text in files.items():
        target = OUT / name
        relative = target.relative_to(ROOT)
        current = target.read_text() if target.exists() else None
        if current == text:
            continue
        if not args.check:
            target.write_text(text)
            print(f"[generate] wrote {relative}", file=sys.stderr)
            continue
        stale += 1
        was = (current or "").split("\n")
        now = text.split("\n")
        line = next((i for i, (a, b) in enumerate(zip(was, now)) if a != b), min(len(was), len(now)))
        print(f"[generate] {relative} is out of date with {args.source} (first difference at line {line + 1}):", file=sys.stderr)
        print(f"  checked in: {was[line] if line < len(was) else '(end of file)'}", file=sys.stderr)
        print(f"  generated:  {now[line] if line < len(now) else '(end of file)'}", file=sys.stderr)
    if args.check and stale > 0:
        print(
            "[generate] run `python scripts/generate_types.py <served openapi.json URL>` in clients/python and commit the result",
            file=sys.stderr,
        )
        return 1
    if args.check:
        print(f"[generate] src/doorman_client/_generated/ matches {args.source}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
