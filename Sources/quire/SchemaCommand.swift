import QuireCore
import QuireModel

/// `quire schema [--site S]`: the JSON Schema of page sources, for editor completion.
struct SchemaCommand {
    static let abstract = "Print the JSON Schema of page sources."
    var arguments: Arguments

    func run() throws -> ExitCode {
        try arguments.rejectUnknown(flags: [])
        guard let site = arguments.site else {
            Console.shared.json(PageSchema.make(vocabulary: .builtIn))
            return .ok
        }
        _ = try Sites.names(pages: arguments.pages, only: site)
        let settings = SiteSettings.load(siteRoot: "\(arguments.pages)/\(site)", site: site, displayRoot: "\(arguments.pages)/\(site)")
        for diagnostic in settings.diagnostics { Console.shared.diagnostic(diagnostic) }
        guard let context = settings.context else { return .contentProblems }
        Console.shared.json(PageSchema.make(vocabulary: context.vocabulary, config: context.config))
        return .ok
    }
}
