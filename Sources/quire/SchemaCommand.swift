import QuireCommandLine
import QuireCore
import QuireModel

/// `quire schema [--published | --index] [--site S]`: the JSON Schema of page sources, for editor
/// completion, or with `--published` of the pages apps receive, for app teams' decoders.
struct SchemaCommand {
    static let spec = CommandSpec(
        "schema", abstract: "Print the JSON Schema of page sources (--published: of published pages).",
        options: [
            .flag(.published, help: "the schema of the pages apps receive instead of their sources"),
            .flag(.index, help: "the schema of each locale's page index (<locale>/index.json and its parts)"),
            OptionSpec(
                .site, "NAME", absent: .meaning("the built-in vocabulary"), help: "the schema with this site's vocabulary and locales"),
            OptionSpec(.pages, "DIR", default: "pages", help: "the pages folder, where --site is"),
        ],
        example: "quire schema --published --site shop > schema/shop-published.schema.json")
    var arguments: Arguments

    func run() throws -> ExitCode {
        if arguments.flag(.index) {
            Console.shared.json(PageIndexSchema.make())
            return .ok
        }
        let make = arguments.flag(.published) ? PublishedPageSchema.make : PageSchema.make
        guard let site = arguments.site else {
            Console.shared.json(make(.builtIn, nil))
            return .ok
        }
        _ = try Sites.names(pages: arguments.pages, only: site)
        let settings = SiteSettings.load(siteRoot: "\(arguments.pages)/\(site)", site: site, displayRoot: "\(arguments.pages)/\(site)")
        for diagnostic in settings.diagnostics { Console.shared.diagnostic(diagnostic) }
        guard let context = settings.context else { return .contentProblems }
        Console.shared.json(make(context.vocabulary, context.config))
        return .ok
    }
}

extension FlagName {
    fileprivate static let published = FlagName("published")
    fileprivate static let index = FlagName("index")
}
