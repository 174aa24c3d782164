public import QuireModel

/// A JSON Schema (draft 2020-12) of `<locale>/index.json` and its parts `<locale>/index.<k>.json`
/// (`PageIndexFiles`): the pages apps may fetch in a locale, and how an app resolves the links
/// pages hold. One object type with the members of both files, so that code generators make one
/// model; `oneOf` keeps each file to its own members.
public enum PageIndexSchema {
    public static func make() -> JSONValue {
        let string: JSONValue = ["type": "string"]
        let entry: JSONValue = [
            "type": "object",
            "properties": [
                "id": ["type": "string", "description": "The page id: the page is <locale>/<id>.json beside this file."],
                "title": string,
                "ttl": ["type": "integer", "minimum": 0],
                "parts": ["type": "integer", "minimum": 1, "description": "Files of the public variant: <id>.json, <id>.2.json, ..."],
                "audiences": [
                    "type": "array", "items": string, "description": "Audiences with a variant of their own: <id>@<audience>.json.",
                ],
                "feeds": ["type": "array", "items": string, "description": "Feeds listing the page: feeds/<name>.json beside this file."],
                "publish_at": ["type": "string", "description": "The page's publish_at (ISO 8601), when it has one."],
                "published_at": ["type": "string", "description": "publish_at, else when a build first listed the page (ISO 8601)."],
                "changed_in": [
                    "type": "string", "pattern": "^v[0-9]{6}$", "description": "The version whose build last wrote the page's files.",
                ],
            ],
            "required": ["id", "ttl", "parts", "audiences", "feeds", "published_at", "changed_in"],
        ]
        let description: JSONValue = .string(
            "What apps fetch from dist/<site>/current/<locale>/index.json (locale, assets, app_routes, parts): how to resolve "
                + "links, and how many parts list the pages; and from index.<k>.json beside it, k = 1 ... parts (locale, part, "
                + "pages): the pages published in the locale (drafts and pages outside their schedule are not listed) whose id "
                + "falls in part k: 1 + floor(h * parts / 2^32), h the 32-bit FNV-1a hash of the id's UTF-8 bytes "
                + "put through MurmurHash3's fmix32 finalizer. "
                + "Members may be added in later formats: ignore unknown members.")
        let routes: JSONValue = .string(
            "A navigate destination equal to one of these (before any ?query) is an app route; any other /<id> is the page <id>.")
        let assets: JSONValue = [
            "type": "string", "description": "Where /assets/<file> URLs in pages resolve, relative to this file's URL: <assets><file>.",
        ]
        let appRoutes: JSONValue = ["type": "array", "items": string, "description": routes]
        let properties: JSONValue = [
            "locale": string, "assets": assets, "app_routes": appRoutes,
            "parts": [
                "type": "integer", "minimum": 1, "description": "In the index file: its parts are index.1.json ... index.<parts>.json.",
            ],
            "part": ["type": "integer", "minimum": 1, "description": "In a part: its number."],
            "pages": ["type": "array", "items": entry, "description": "In a part: its pages, by id."],
        ]
        var root = JSONObject()
        root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        root["$id"] = "https://quire.invalid/schema/page-index.schema.json"
        root["title"] = "Quire page index"
        root["description"] = description
        root["type"] = "object"
        root["properties"] = properties
        root["required"] = ["locale"]
        root["oneOf"] = [
            ["required": ["assets", "app_routes", "parts"], "not": ["anyOf": [["required": ["part"]], ["required": ["pages"]]]]],
            [
                "required": ["part", "pages"],
                "not": ["anyOf": [["required": ["parts"]], ["required": ["assets"]], ["required": ["app_routes"]]]],
            ],
        ]
        return .object(root)
    }
}
