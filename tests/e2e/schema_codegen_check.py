"""What a code generator makes of the published schemas, tried as an app team would: Python models
from datamodel-code-generator (pydantic v2) for schema/published-page.schema.json and
schema/page-index.schema.json, then every file in fixtures/ parsed with them and written back.

Run by schema-codegen.sh. Checks that every member of every fixture survives (a model that dropped
a section's fields, as one made from `allOf` + `if/then` did, loses most of them), and that each
known section type is read by its own model, not by the open branch for unknown types.
"""
import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile


def generate(schema, folder, name):
    output = os.path.join(folder, f"{name}.py")
    subprocess.run(["datamodel-codegen", "--input", schema, "--input-file-type", "jsonschema",
                    "--output-model-type", "pydantic_v2.BaseModel", "--output", output],
                   check=True, capture_output=True, text=True)
    spec = importlib.util.spec_from_file_location(name, output)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def members(value, path=""):
    """Every member path of a JSON value (list items by index)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}/{key}"
            yield from members(item, f"{path}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from members(item, f"{path}/{index}")


def sections(model):
    """Every section model of a parsed page (RootModel unions unwrapped)."""
    page = getattr(model, "root", model)
    for name in ("sections", "nav", "header", "footer"):
        found = getattr(page, name, None)
        for section in getattr(found, "root", found) or []:
            yield getattr(section, "root", section)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fixtures", required=True)
    parser.add_argument("--schemas", required=True)
    args = parser.parse_args()
    failures = []
    with tempfile.TemporaryDirectory(prefix="quire-codegen-") as folder:
        page_models = generate(os.path.join(args.schemas, "published-page.schema.json"), folder, "quire_page_models")
        index_models = generate(os.path.join(args.schemas, "page-index.schema.json"), folder, "quire_index_models")
        total = kept = files = 0
        typed = set()
        for root, _, names in os.walk(args.fixtures):
            for name in sorted(names):
                if not name.endswith(".json"):
                    continue
                path = os.path.join(root, name)
                with open(path) as file:
                    document = json.load(file)
                relative = os.path.relpath(path, args.fixtures)
                is_index = re.fullmatch(r"index(\.[0-9]+)?\.json", name) is not None and len(relative.split(os.sep)) == 3
                model_type = index_models.QuirePageIndex if is_index else page_models.QuirePublishedPage
                model = model_type.model_validate(document)
                written = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
                expected, found = set(members(document)), set(members(written))
                lost = sorted(expected - found)
                total += len(expected)
                kept += len(expected & found)
                files += 1
                if lost:
                    failures.append(f"fixtures/{relative}: the generated models drop {len(lost)} members: {lost[:5]}")
                if not is_index:
                    for section in sections(model):
                        kind = type(section).__name__
                        published = str(getattr(section, "type", ""))
                        if kind == "OtherSection" and published in KNOWN:
                            failures.append(f"fixtures/{relative}: a {published} section was read as an unknown type")
                        elif kind != "OtherSection":
                            typed.add(published)
        print(f"  {files} fixtures, {kept} of {total} members kept; section types read by their own model: "
              f"{', '.join(sorted(typed))}")
        if files < 30:
            failures.append(f"only {files} fixtures found in {args.fixtures}")
        missing = KNOWN - typed
        if missing:
            failures.append(f"no fixture section read by the model of {sorted(missing)}")
    for failure in failures:
        print(f"FAIL {failure}")
    if failures:
        sys.exit(1)
    print("schema codegen: every member of every fixture kept")


KNOWN = {"hero_banner", "markdown_block", "product_grid", "drill_carousel", "cta_button", "video_embed",
         "image_gallery", "divider", "announcement", "page_link"}

if __name__ == "__main__":
    main()
