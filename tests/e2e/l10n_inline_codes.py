"""XLIFF inline codes through the tools translators use (run by l10n-inline-codes.sh).

On a copy of the `shop` fixture site: `quire l10n export` writes placeholders and link markup as
inline codes that Python's XML parser and translate-toolkit see as codes, not text; a
translation made around the codes (moved, not changed) imports and publishes exactly; the same
file through translate-toolkit's xliff2po and po2xliff imports to the same strings; a
translation that drops a code or ends a link before it starts is refused at path:line:col.
"""
import argparse
import copy
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

from translate.storage import factory
from translate.tools.pocount import wordcount

XLIFF12 = "urn:oasis:names:tc:xliff:document:1.2"
XLIFF20 = "urn:oasis:names:tc:xliff:document:2.0"
failures = []


def expect(condition, message):
    if not condition:
        failures.append(message)
        print(f"FAIL: {message}", flush=True)
    return condition


def import_and_build(site, tree, namespace, name, label):
    """Writes the translated tree, imports it and builds the site, as a translator's round trip ends;
    returns the translated file's path."""
    ET.register_namespace("", namespace)
    translated = site.path(name)
    os.makedirs(os.path.dirname(translated), exist_ok=True)
    tree.write(translated, encoding="UTF-8", xml_declaration=True)
    imported = site.quire("l10n", "import", translated, "--site", "shop")
    expect(imported.returncode == 0 and "error" not in imported.stderr, f"import of the translated {label}: {imported.stderr}")
    build = site.quire("build", "--dist", site.path("dist"), "--site", "shop")
    expect(build.returncode == 0, f"build: {build.stderr}")
    return translated


class Site:
    def __init__(self, quire, root):
        self.quire_bin, self.root = quire, root
        self.pages = os.path.join(root, "pages")

    def quire(self, *arguments):
        run = subprocess.run([self.quire_bin, *arguments, "--pages", self.pages], cwd=self.root,
                             capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
        return run

    def path(self, relative):
        return os.path.join(self.root, relative)

    def published(self, locale, page):
        with open(self.path(f"dist/shop/current/{locale}/{page}.json")) as handle:
            return json.load(handle)


def units(tree, namespace):
    tag = "trans-unit" if namespace == XLIFF12 else "unit"
    return {unit.get("resname") or unit.get("id"): unit for unit in tree.iter(f"{{{namespace}}}{tag}")}


def text_parts(element):
    """The text an XML parser sees between the codes of a <source> or <target>."""
    return [element.text or ""] + [child.tail or "" for child in element]


def translate_around_codes(source, words, inner=()):
    """A <target> with the source's codes, its text nodes replaced one by one by `words`, the
    text inside its codes (2.0 <pc>) by `inner`."""
    target = copy.deepcopy(source)
    target.tag = target.tag.replace("source", "target")
    target.text = words[0]
    for child, tail in zip(target, words[1:]):
        child.tail = tail
    for child, text in zip(target, inner):
        child.text = text
    return target


def published_text(page, section_id, field):
    return next(section[field] for section in page["sections"] if section.get("id") == section_id)


def position(text, needle):
    """`line:column` of `needle`, 1-based, in characters."""
    offset = text.index(needle)
    line = text.count("\n", 0, offset) + 1
    return f"{line}:{offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def check_xliff12(site):
    export = site.quire("l10n", "export", "--site", "shop", "--locale", "es", "--format", "xliff12", "--out", site.path("out12"))
    expect(export.returncode == 0, f"export xliff12: {export.stderr}")
    path = site.path("out12/store.xlf")
    tree = ET.parse(path)
    found = units(tree, XLIFF12)
    promo = found["promo.title"].find(f"{{{XLIFF12}}}source")
    why = found["why.body"].find(f"{{{XLIFF12}}}source")
    expect([child.tag.split("}")[1] for child in promo] == ["ph"] and promo[0].text == "{percent}", "promo.title: {percent} is a <ph>")
    expect(not any("{" in part for part in text_parts(promo)), "promo.title: no placeholder in the text to translate")
    expect([child.tag.split("}")[1] for child in why] == ["bpt", "ept"], "why.body: the link's markup is a <bpt>/<ept> pair")
    expect(why[1].text == "](https://example.com/rules)" and why[1].get("id") == why[0].get("id"), "why.body: the <ept> holds the URL")
    expect(not any("example.com" in part for part in text_parts(why)), "why.body: no URL in the text to translate")
    expect("".join(why.itertext()) == "Read the [rules](https://example.com/rules) before your first match.",
           "why.body: the codes keep the original markdown")

    # translate-toolkit reads the codes as placeables: what is left to translate and count.
    store = factory.getobject(path)
    for unit in store.units:
        if "{percent}" not in unit.source and "example.com" not in unit.source:
            continue
        leaves = unit.rich_source[0].flatten()
        text = "".join(str(leaf) for leaf in leaves if type(leaf).__name__ == "StringElem")
        codes = [str(leaf) for leaf in leaves if type(leaf).__name__ != "StringElem"]
        print(f"translate-toolkit: {unit.getid()}: {wordcount(text)} words to translate in {text!r}, codes {codes}, "
              f"pocount of the flattened string {wordcount(unit.source)}")
        expect("{" not in text and "example.com" not in text, f"{unit.getid()}: translate-toolkit sees codes, not text")
    expect(wordcount("Members save ") == 2, "the words of promo.title without its placeholder")

    # A translator's tool fills the targets around the codes, moving the link.
    body = found["promo.body"].find(f"{{{XLIFF12}}}source")
    expect([(child.tag.split("}")[1], child.get("ctype"), child.text) for child in body] == [("bpt", "bold", "**"), ("ept", None, "**")],
           "promo.body: bold is a <bpt ctype=\"bold\">/<ept> pair")
    translations = {
        "promo.title": ["Los miembros ahorran ", ""],
        "why.body": ["Antes de su primer partido, lea las ", "reglas", "."],
        "promo.body": ["Inicie sesión para ver los precios para ", "miembros", "."],
    }
    for key, words in translations.items():
        source = found[key].find(f"{{{XLIFF12}}}source")
        target = translate_around_codes(source, words)
        target.set("state", "translated")
        found[key].set("approved", "yes")
        found[key].insert(list(found[key]).index(source) + 1, target)
    translated = import_and_build(site, tree, XLIFF12, "translated/store.xlf", "XLIFF 1.2")
    page = site.published("es", "store")
    expect(published_text(page, "promo", "title") == "Los miembros ahorran {percent}", "published promo.title")
    expect(published_text(page, "why", "body") == "Antes de su primer partido, lea las [reglas](https://example.com/rules).",
           "published why.body (markdown as translated)")
    expect(published_text(page, "promo", "body") == "Inicie sesión para ver los precios para **miembros**.", "published promo.body")
    status = site.quire("l10n", "status").stdout
    print(status, end="")

    # The same file through translate-toolkit's PO converters: the codes become the markdown.
    po = site.path("tool/store.po")
    os.makedirs(os.path.dirname(po), exist_ok=True)
    run = subprocess.run(["xliff2po", translated, po], capture_output=True, text=True)
    expect(run.returncode == 0, f"xliff2po: {run.stderr}")
    po_units = {unit.source: unit for unit in factory.getobject(po).units}
    converted = po_units.get("Read the [rules](https://example.com/rules) before your first match.")
    expect(converted is not None and converted.target == "Antes de su primer partido, lea las [reglas](https://example.com/rules).",
           f"xliff2po: the codes become the markdown in msgid and msgstr: {list(po_units)}")
    back = site.path("tool/store.xlf")
    run = subprocess.run(["po2xliff", po, back], capture_output=True, text=True)
    expect(run.returncode == 0, f"po2xliff: {run.stderr}")
    reimported = site.quire("l10n", "import", back, "--site", "shop", "--locale", "es")
    expect(reimported.returncode == 0 and "error" not in reimported.stderr, f"import after xliff2po/po2xliff: {reimported.stderr}")
    expect(site.quire("l10n", "status").stdout == status, "xliff2po -> po2xliff -> import changes no string")

    # Codes dropped or out of order: refused where they are.
    with open(translated) as handle:
        good = handle.read()
    placeholder = '<ph id="1" ctype="x-placeholder">{percent}</ph></target>'
    expect(good.count(placeholder) == 1, "the translated promo.title ends with its placeholder")
    write(translated, good.replace(placeholder, "</target>"))
    refused = site.quire("l10n", "import", translated, "--site", "shop")
    where = position(good, '<trans-unit id="promo.title"')
    expect(refused.returncode == 1 and f"{translated}:{where}: error: promo.title: the translation drops {{percent}}" in refused.stderr,
           f"dropped placeholder: {refused.stderr}")
    link = '<bpt id="1" ctype="link">[</bpt>reglas<ept id="1">](https://example.com/rules)</ept>'
    swapped = '<ept id="1">](https://example.com/rules)</ept>reglas<bpt id="1" ctype="link">[</bpt>'
    expect(good.count(link) == 1, "the translated why.body holds the link")
    bad = good.replace(link, swapped)
    write(translated, bad)
    refused = site.quire("l10n", "import", translated, "--site", "shop")
    where = position(bad, swapped)
    expect(refused.returncode == 1 and f"{translated}:{where}: error: the translation has inline code <ept id=\"1\"> before its <bpt id=\"1\">"
           in refused.stderr, f"link ended before it starts: {refused.stderr}")


def check_xliff20(site):
    export = site.quire("l10n", "export", "--site", "shop", "--locale", "fr-CA", "--format", "xliff20", "--out", site.path("out20"))
    expect(export.returncode == 0, f"export xliff20: {export.stderr}")
    path = site.path("out20/store.xlf")
    tree = ET.parse(path)
    found = units(tree, XLIFF20)
    for key, expected in [("promo.title", ["{percent}"]), ("why.body", ["[", "](https://example.com/rules)"])]:
        unit = found[key]
        data = {item.get("id"): item.text for item in unit.iter(f"{{{XLIFF20}}}data")}
        source = unit.find(f"{{{XLIFF20}}}segment/{{{XLIFF20}}}source")
        code = source[0]
        references = [code.get("dataRef")] if code.tag.endswith("ph") else [code.get("dataRefStart"), code.get("dataRefEnd")]
        expect([data.get(reference) for reference in references] == expected, f"{key}: original data {data} for {references}")
        expect(not any("{" in part or "example.com" in part for part in text_parts(source)), f"{key}: no code in the 2.0 text")
    translations = {
        "promo.title": (["Les membres épargnent ", ""], []),
        "why.body": (["Lisez les ", " d'abord."], ["règles"]),
        "promo.body": (["Connectez-vous pour les prix ", "."], ["membres"]),
    }
    for key, (words, inner) in translations.items():
        segment = found[key].find(f"{{{XLIFF20}}}segment")
        segment.append(translate_around_codes(segment.find(f"{{{XLIFF20}}}source"), words, inner))
    import_and_build(site, tree, XLIFF20, "translated20/store.xlf", "XLIFF 2.0")
    page = site.published("fr-CA", "store")
    expect(published_text(page, "promo", "title") == "Les membres épargnent {percent}", "published fr-CA promo.title")
    body = published_text(page, "why", "body")
    expect(body == "Lisez les [règles](https://example.com/rules) d'abord.", f"published fr-CA why.body: {body!r}")
    expect(published_text(page, "promo", "body") == "Connectez-vous pour les prix **membres**.", "published fr-CA promo.body")


def write(path, text):
    with open(path, "w") as handle:
        handle.write(text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quire", required=True)
    parser.add_argument("--root", required=True)
    arguments = parser.parse_args()
    site = Site(arguments.quire, arguments.root)
    check_xliff12(site)
    check_xliff20(site)
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("inline codes: XLIFF 1.2 and 2.0 round trips through ElementTree and translate-toolkit passed")


if __name__ == "__main__":
    main()
