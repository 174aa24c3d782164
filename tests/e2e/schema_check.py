"""`quire schema` against `quire check`, with an independent validator (Python's jsonschema).

Run by schema-jsonschema.sh. For every fixture page (Tests/QuireCoreTests/Fixtures/validation/
valid and invalid, placed one at a time into a copy of the fixture site as `page.<ext>`) and every
sample page, the verdict of Draft202012Validator with the schema must equal the exit status of
`quire check` (0: valid, warnings allowed; 1: invalid), except for the fixtures listed below,
whose rule no schema can express; for those the disagreement itself is asserted, so a schema that
learns the rule makes the test ask for the exception to be removed.

YAML is read with the YAML 1.2 core schema, as Quire reads it (`no` is text, `0x1F` is text
only when not an integer...), not PyYAML's YAML 1.1 defaults.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml
from jsonschema import Draft202012Validator

# Rules `quire check` enforces and a JSON Schema cannot: fixture -> why. Keep README.md in step.
CANNOT_EXPRESS = {
    "duplicate-section-id.yaml": "section ids unique in a page",
    "duplicate-item-id.yaml": "item ids unique in a list",
    "page-id-mismatch.yaml": "page_id equal to the id given by the file's path",
    "navigate-unknown.yaml": "navigate destinations: a page of the site or an app route of site.yaml",
    "missing-asset.yaml": "/assets/ paths naming a file in the site's assets/ folder",
    "undeclared-audience.yaml": "visible_to naming audiences of site.yaml (the --site schema lists them)",
    "duplicate-key.yaml": "source syntax: duplicate keys (JSON and YAML readers keep one value)",
    "yaml-alias.yaml": "source syntax: YAML anchors and aliases (a YAML reader expands them)",
}
# With `quire schema --site`, audiences are listed: that rule becomes expressible.
SITE_SCHEMA_EXPRESSES = {"undeclared-audience.yaml"}


class SourceRefused(Exception):
    """The page cannot be given to a validator as JSON: Quire refuses it as source syntax."""


class CoreSchemaLoader(yaml.SafeLoader):
    """PyYAML with the YAML 1.2 core schema's implicit types, no aliases, no duplicate keys."""

    yaml_implicit_resolvers = {}

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            raise SourceRefused("alias")
        event = self.peek_event()
        if getattr(event, "anchor", None):
            raise SourceRefused("anchor")
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        keys = [self.construct_object(key, deep=deep) for key, _ in node.value]
        if len(keys) != len(set(map(repr, keys))):
            raise SourceRefused("duplicate key")
        return super().construct_mapping(node, deep=deep)


def _core_int(loader, node):
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


def _core_float(loader, node):
    text = loader.construct_scalar(node).lower()
    if text.endswith(".inf"):
        return float("-inf") if text.startswith("-") else float("inf")
    if text == ".nan":
        return float("nan")
    return float(text)


for tag, pattern, first in [
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    ("float", r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+.0123456789"),
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
]:
    CoreSchemaLoader.add_implicit_resolver(f"tag:yaml.org,2002:{tag}", re.compile(pattern), list(first))
CoreSchemaLoader.add_constructor("tag:yaml.org,2002:int", _core_int)
CoreSchemaLoader.add_constructor("tag:yaml.org,2002:float", _core_float)


def load_source(path):
    with open(path, encoding="utf-8") as file:
        text = file.read()
    if path.endswith(".json"):
        def pairs(members):
            if len({key for key, _ in members}) != len(members):
                raise SourceRefused("duplicate key")
            return dict(members)
        return json.loads(text, object_pairs_hook=pairs)
    return yaml.load(text, Loader=CoreSchemaLoader)


def schema_verdict(validator, path):
    """(valid, reason) of the schema for one source file."""
    try:
        document = load_source(path)
    except SourceRefused as refusal:
        return None, f"not loadable as JSON: {refusal}"
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    if not errors:
        return True, ""
    return False, "; ".join(f"{'/'.join(map(str, e.absolute_path)) or '(page)'}: {e.message[:120]}" for e in errors[:3])


def quire_verdict(quire, site_dir, fixture):
    """(valid, stderr) of `quire check` with the fixture as the site's page `page.<ext>`."""
    scratch = tempfile.mkdtemp(prefix="quire-schema-")
    try:
        shutil.copytree(site_dir, os.path.join(scratch, "s"))
        shutil.copy(fixture, os.path.join(scratch, "s", "page" + os.path.splitext(fixture)[1]))
        result = subprocess.run([quire, "check", "--pages", scratch, "--site", "s"], capture_output=True, text=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if result.returncode not in (0, 1):
        raise SystemExit(f"quire check {fixture}: exit {result.returncode}: {result.stderr}")
    return result.returncode == 0, result.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quire", required=True)
    parser.add_argument("--fixtures", required=True)
    parser.add_argument("--pages", required=True)
    parser.add_argument("--committed", required=True)
    args = parser.parse_args()
    failures = []

    def schema_of(*extra):
        output = subprocess.run([args.quire, "schema", *extra], capture_output=True, text=True, check=True).stdout
        schema = json.loads(output)
        Draft202012Validator.check_schema(schema)
        return output, schema

    generic_text, generic = schema_of()
    with open(args.committed) as file:
        if file.read() != generic_text:
            failures.append(f"{args.committed} differs from `quire schema`: run `quire schema > {args.committed}`")

    site_dir = os.path.join(args.fixtures, "site")
    site_pages = tempfile.mkdtemp(prefix="quire-schema-site-")
    shutil.copytree(site_dir, os.path.join(site_pages, "s"))
    _, site_schema = schema_of("--pages", site_pages, "--site", "s")
    shutil.rmtree(site_pages)

    fixtures = sorted(
        (group, name) for group in ("valid", "invalid")
        for name in os.listdir(os.path.join(args.fixtures, group))
        if name.endswith((".yaml", ".yml", ".json"))
    )
    listed = set(CANNOT_EXPRESS)
    for group, name in fixtures:
        path = os.path.join(args.fixtures, group, name)
        quire_ok, quire_output = quire_verdict(args.quire, site_dir, path)
        if group == "valid" and not quire_ok:
            failures.append(f"valid/{name}: quire check refuses it: {quire_output.strip()}")
        for label, schema in (("schema", generic), ("schema --site", site_schema)):
            schema_ok, reason = schema_verdict(Draft202012Validator(schema), path)
            exception = name in CANNOT_EXPRESS and not (label == "schema --site" and name in SITE_SCHEMA_EXPRESSES)
            if exception:
                listed.discard(name)
                if schema_ok is not None and schema_ok == quire_ok:
                    failures.append(f"{group}/{name}: `quire {label}` now agrees with quire check: remove it from CANNOT_EXPRESS")
                continue
            if schema_ok != quire_ok:
                failures.append(
                    f"{group}/{name}: `quire {label}` says {'valid' if schema_ok else 'invalid'} ({reason or 'no errors'}), "
                    f"quire check says {'valid' if quire_ok else 'invalid'}: {quire_output.strip().splitlines()[:2]}")
        print(f"  {group}/{name}: quire check {'ok' if quire_ok else 'refuses'}", flush=True)
    if listed:
        failures.append(f"CANNOT_EXPRESS names fixtures that do not exist: {sorted(listed)}")

    # The samples: every page validates against the generic schema and its site's schema.
    for site in sorted(os.listdir(args.pages)):
        root = os.path.join(args.pages, site)
        if not os.path.isfile(os.path.join(root, "site.yaml")):
            continue
        check = subprocess.run([args.quire, "check", "--pages", args.pages, "--site", site], capture_output=True, text=True)
        if check.returncode != 0:
            failures.append(f"sample {site}: quire check exits {check.returncode}: {check.stderr.strip()}")
        _, own_schema = schema_of("--pages", args.pages, "--site", site)
        # Not pages: the settings, the vocabulary and the drill catalog site.yaml names.
        settings = load_source(os.path.join(root, "site.yaml")) or {}
        not_pages = {"site.yaml", "vocabulary.yaml", "vocabulary.yml", "vocabulary.json", settings.get("drill_catalog")}
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not (folder == root and d in ("assets", "l10n"))]
            for name in files:
                if not name.endswith((".yaml", ".yml", ".json")) or (folder == root and name in not_pages):
                    continue
                path = os.path.join(folder, name)
                for label, schema in (("schema", generic), (f"schema --site {site}", own_schema)):
                    ok, reason = schema_verdict(Draft202012Validator(schema), path)
                    if not ok:
                        failures.append(f"sample {os.path.relpath(path, args.pages)}: `quire {label}` refuses it: {reason}")
                print(f"  sample {os.path.relpath(path, args.pages)}: schema ok", flush=True)

    for failure in failures:
        print(f"FAIL: {failure}", flush=True)
    if failures:
        return 1
    print(f"schema agrees with quire check on {len(fixtures)} fixtures "
          f"({len(CANNOT_EXPRESS)} listed as beyond a schema) and every sample page", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
