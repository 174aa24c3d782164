import QuireCore
import QuireModel

/// `quire schema [--published] [--site S]`: the JSON Schema of page sources, for editor
/// completion, or with `--published` of the pages apps receive, for app teams' decoders.
struct SchemaCommand {
    static let abstract = "Print the JSON Schema of page sources (--published: of published pages)."
    var arguments: Arguments

    func run() throws -> ExitCode {
        try arguments.rejectUnknown(flags: ["published"])
        let make = arguments.flag("published") ? PublishedPageSchema.make : PageSchema.make
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
