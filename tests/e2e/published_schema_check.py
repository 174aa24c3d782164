"""What apps receive against `quire schema --published`, with an independent validator (Python's
jsonschema, Draft 2020-12).

Run by published-schema.sh. Checks that:
- schema/published-page.schema.json is what `quire schema --published` prints, and is a valid schema;
- every page the given sites publish (built into a temporary dist: every locale, audience variant,
  part and redirect stub) and every file in fixtures/ validates against the generic schema and
  against its site's own (`--site`), each also in a closed copy (every object the schema describes
  refuses members it does not name: the schema itself stays open for forward compatibility, but
  whatever Quire publishes must be declared in it);
- the pages checked include variants, parts, redirects, right-to-left pages, markdown block trees,
  fallbacks and unknown section types, so a test that saw none of them cannot pass;
- the schema refuses pages that break the contract (sections not a list, markdown published as an
  object, a markdown field without its rendered forms...) and accepts what apps must tolerate
  (sections of unknown types, new members).
"""
import argparse
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

# The unions' open branches (types the vocabulary does not know) stay open in the closed copy too.
OPEN_DEFINITIONS = {("$defs", "other_section"), ("$defs", "other_block"), ("$defs", "other_inline")}
BUILT_IN_TYPES = {"hero_banner", "markdown_block", "product_grid", "drill_carousel", "cta_button",
                  "video_embed", "image_gallery", "divider", "announcement", "page_link"}
PART = re.compile(r"\.[0-9]+(@[a-z0-9_-]+)?\.json$")


def closed(schema):
    """A copy in which every object with `properties` takes no other member (conditions excepted:
    an `if` that refused extra members would switch its `then` off)."""
    result = copy.deepcopy(schema)

    def close(node, path):
        if isinstance(node, dict):
            if "properties" in node and path not in OPEN_DEFINITIONS:
                node.setdefault("additionalProperties", False)
            for key, value in node.items():
                if key not in ("if", "then", "not"):
                    close(value, path + (key,))
        elif isinstance(node, list):
            for value in node:
                close(value, path)

    close(result, ())
    return result


def schema_of(quire, *extra):
    output = subprocess.run([quire, "schema", "--published", *extra], capture_output=True, text=True, check=True).stdout
    schema = json.loads(output)
    Draft202012Validator.check_schema(schema)
    return output, schema


def validators(schema):
    return [("open", Draft202012Validator(schema)), ("closed", Draft202012Validator(closed(schema)))]


def errors(validator, document):
    """The first few errors, each as the member it is about (the root's oneOf says only "not valid
    under any of the given schemas": its most relevant inner error is shown instead)."""
    found = [best_match([error]) for error in validator.iter_errors(document)]
    found.sort(key=lambda e: list(map(str, e.absolute_path)))
    return "; ".join(f"{'/'.join(map(str, e.absolute_path)) or '(page)'}: {e.message[:160]}" for e in found[:3])


class Coverage:
    """What kinds of published files and members the run has seen."""

    def __init__(self):
        self.seen = {key: 0 for key in ("audience variant", "part 2 or later", "redirect stub", "right-to-left page",
                                        "markdown block tree", "fallback with min_app_version",
                                        "section of an unknown type", "section of a site's own type")}

    def note(self, name, document, site_types):
        if "@" in name:
            self.seen["audience variant"] += 1
        if PART.search(name):
            self.seen["part 2 or later"] += 1
        if "redirect_to" in document:
            self.seen["redirect stub"] += 1
        if document.get("direction") == "rtl":
            self.seen["right-to-left page"] += 1
        for key in ("nav", "header", "footer", "sections"):
            for section in document.get(key) or []:
                if not isinstance(section, dict):
                    continue
                if any(k.endswith("_blocks") and v for k, v in section.items()):
                    self.seen["markdown block tree"] += 1
                if "fallback" in section and "min_app_version" in section:
                    self.seen["fallback with min_app_version"] += 1
                if section.get("type") in site_types:
                    self.seen["section of a site's own type"] += 1
                elif section.get("type") not in BUILT_IN_TYPES:
                    self.seen["section of an unknown type"] += 1

    def missing(self):
        return [key for key, count in self.seen.items() if count == 0]


def is_index(path, root):
    """`<locale>/index.json` and its parts `index.<k>.json`: the page index, checked against its own schema."""
    parts = os.path.relpath(path, root).split(os.sep)
    return len(parts) == 2 and re.fullmatch(r"index(\.[0-9]+)?\.json", parts[1]) is not None


def build(quire, pages_root, site, dist):
    result = subprocess.run([quire, "build", "--pages", pages_root, "--dist", dist, "--site", site, "--no-preview"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"quire build --site {site}: exit {result.returncode}: {result.stderr}")
    current = os.path.join(dist, site, "current")
    with open(os.path.join(current, "manifest.json")) as file:
        manifest = json.load(file)
    published = []
    for locale in manifest["locales"]:
        # Folders are symbolic links into the version's trees.
        for folder, _, files in os.walk(os.path.join(current, locale), followlinks=True):
            published += [os.path.join(folder, name) for name in files if name.endswith(".json")]
        if len([p for p in published if os.path.relpath(p, current).split(os.sep)[0] == locale]) != manifest["folders"][locale]["files"]:
            raise SystemExit(f"{site}/{locale}: found other files than the manifest's {manifest['folders'][locale]['files']}")
    return current, sorted(published)


def negatives(page):
    """Pages that break the contract, each from a real published page with sections."""
    cases = {}

    def case(name, change):
        document = copy.deepcopy(page)
        change(document)
        cases[name] = document

    case("sections is an object, not a list", lambda d: d.__setitem__("sections", {"0": d["sections"][0]}))
    case("sections is a string", lambda d: d.__setitem__("sections", "hero"))
    case("no ttl", lambda d: d.pop("ttl"))
    case("a section without a type", lambda d: d["sections"][0].pop("type"))
    case("next without part and parts", lambda d: d.__setitem__("next", "x.2.json"))
    markdown = [(s, k) for s in page["sections"] for k in s if k + "_html" in s and k + "_blocks" in s]
    if markdown:
        index, key = page["sections"].index(markdown[0][0]), markdown[0][1]
        case("markdown published as an object (format 1)",
             lambda d: d["sections"][index].__setitem__(key, {"markdown": d["sections"][index][key]}))
        case("a markdown field without its _html", lambda d: d["sections"][index].pop(key + "_html"))
        case("a block tree node of a known type without its members",
             lambda d: d["sections"][index].__setitem__(key + "_blocks", [{"type": "paragraph"}]))
    return cases, bool(markdown)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quire", required=True)
    parser.add_argument("--committed", required=True)
    parser.add_argument("--fixtures", required=True, help="fixtures/: published pages for app teams, one folder a site")
    parser.add_argument("--site", action="append", default=[], help="a site folder (pages/<site>) to build and check")
    args = parser.parse_args()
    failures = []

    generic_text, generic = schema_of(args.quire)
    with open(args.committed) as file:
        if file.read() != generic_text:
            failures.append(f"{args.committed} differs from `quire schema --published`: "
                            f"run `quire schema --published > {args.committed}`")
    generic_validators = validators(generic)
    index_text = subprocess.run([args.quire, "schema", "--index"], capture_output=True, text=True, check=True).stdout
    index_schema = json.loads(index_text)
    Draft202012Validator.check_schema(index_schema)
    committed_index = os.path.join(os.path.dirname(args.committed), "page-index.schema.json")
    with open(committed_index) as file:
        if file.read() != index_text:
            failures.append(f"{committed_index} differs from `quire schema --index`")
    index_validators = validators(index_schema)
    indexes_checked = 0
    coverage = Coverage()
    site_validators = {}
    site_types = set()
    checked = 0
    sample_page = None

    def check(label, document, checks):
        nonlocal checked
        checked += 1
        for name, validator in checks:
            reason = errors(validator, document)
            if reason:
                failures.append(f"{label}: refused by the {name} schema: {reason}")

    scratch = tempfile.mkdtemp(prefix="quire-published-schema-")
    try:
        for site_dir in args.site:
            pages_root, site = os.path.split(os.path.abspath(site_dir))
            _, own = schema_of(args.quire, "--pages", pages_root, "--site", site)
            own_types = {branch["$ref"].split("/")[-1][len("section_"):] for branch in own["$defs"]["section"]["oneOf"]
                         if branch["$ref"].split("/")[-1].startswith("section_")}
            site_types |= own_types - BUILT_IN_TYPES
            site_validators[site] = [(f"{site} {name}", v) for name, v in validators(own)]
            current, published = build(args.quire, pages_root, site, os.path.join(scratch, site))
            if not published:
                failures.append(f"{site}: published no pages")
            for path in published:
                with open(path) as file:
                    document = json.load(file)
                label = f"{site}/{os.path.relpath(path, current)}"
                if is_index(path, current):
                    check(label, document, [(f"page index {n}", v) for n, v in index_validators])
                    indexes_checked += 1
                    continue
                check(label, document, [(f"generic {n}", v) for n, v in generic_validators] + site_validators[site])
                coverage.note(os.path.basename(path), document, own_types - BUILT_IN_TYPES)
                if sample_page is None and document.get("sections") and "part" not in document:
                    sample_page = document
            print(f"  {site}: {len(published)} published files checked", flush=True)

        fixture_count = 0
        for folder, _, files in os.walk(args.fixtures):
            for name in sorted(files):
                if not name.endswith(".json"):
                    continue
                path = os.path.join(folder, name)
                site = os.path.relpath(path, args.fixtures).split(os.sep)[0]
                with open(path) as file:
                    document = json.load(file)
                if is_index(path, os.path.join(args.fixtures, site)):
                    check(f"fixtures/{os.path.relpath(path, args.fixtures)}", document,
                          [(f"page index {n}", v) for n, v in index_validators])
                    indexes_checked += 1
                    continue
                check(f"fixtures/{os.path.relpath(path, args.fixtures)}", document,
                      [(f"generic {n}", v) for n, v in generic_validators] + site_validators.get(site, []))
                coverage.note(name, document, site_types)
                fixture_count += 1
        print(f"  fixtures: {fixture_count} files checked", flush=True)
        if fixture_count == 0:
            failures.append(f"no fixtures found in {args.fixtures}")
        if indexes_checked == 0:
            failures.append("no page index was checked")
        # Each index file keeps to its own members: a head listing pages, or a part without its number, is refused.
        head = {"locale": "en", "assets": "../assets/", "app_routes": [], "parts": 1}
        part = {"locale": "en", "part": 1, "pages": []}
        for name, document in {"the index file lists pages": {**head, "pages": []},
                               "a part has no number": {"locale": "en", "pages": []},
                               "a part says how many parts there are": {**part, "parts": 2},
                               "the index file has no part count": {k: v for k, v in head.items() if k != "parts"}}.items():
            for label, validator in index_validators:
                if not errors(validator, document):
                    failures.append(f"the page index {label} schema accepts a file where {name}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    for kind in coverage.missing():
        failures.append(f"no published file had a {kind}: the check would not notice it breaking")

    # The contract's edges: what must be refused, what must be accepted.
    if sample_page is None:
        failures.append("no published page with sections to derive the negative cases from")
    else:
        cases, has_markdown = negatives(sample_page)
        if not has_markdown:
            failures.append("the sample page for the negative cases has no markdown field")
        for name, document in cases.items():
            for label, validator in generic_validators:
                if not errors(validator, document):
                    failures.append(f"the {label} schema accepts a page where {name}")
        tolerated = copy.deepcopy(sample_page)
        tolerated["sections"].append({"type": "hologram", "id": "future", "beam": {"color": "blue"}, "min_app_version": "9.0"})
        tolerated["sections"][0]["added_in_a_later_format"] = True
        reason = errors(generic_validators[0][1], tolerated)
        if reason:
            failures.append(f"the open schema refuses an unknown section type or a new member: {reason}")
        if not errors(generic_validators[1][1], tolerated):
            failures.append("the closed copy accepts a member the schema does not name: the check of published members is void")
        print(f"  contract edges: {len(cases)} broken pages refused, unknown types and new members accepted", flush=True)

    for failure in failures:
        print(f"FAIL: {failure}", flush=True)
    if failures:
        return 1
    seen = ", ".join(f"{count} {kind}" for kind, count in coverage.seen.items())
    print(f"published schema: {checked} files valid (generic and site schemas, open and closed); seen: {seen}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
