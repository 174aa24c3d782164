import QuireModel

extension DashboardService {
    func l10nRoute(_ request: SCGIRequest, site: String, rest: [String]) throws(DashboardError) -> HTTPResponse {
        throw .notFound("no such route under /api/sites/\(site)/l10n/")
    }
}
