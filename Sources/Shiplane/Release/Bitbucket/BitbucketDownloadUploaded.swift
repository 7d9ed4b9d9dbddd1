import Foundation

/// A download this run put on a Bitbucket repository, where none of its name was. Written down
/// before the upload with what it sends (name, size, SHA-256) and given Bitbucket's `created_on`
/// once listed. Its undo is a compare-and-swap: the download is deleted only while it is still
/// this run's — the same upload time, or (when the run was cut short before it saw one) the same
/// bytes; a download someone replaced since is left, and the rollback says so.
struct BitbucketDownloadUploaded: Effect, Equatable {
    static let kind = "bitbucket.download"
    var api: String
    var repository: String
    var name: String
    var size: Int64
    var sha256: String
    var createdOn: String?

    var reach: EffectReach { .publication }

    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        guard let credentials = BitbucketCredentials.from(context.environment.variables) else {
            throw ShiplaneError("the Bitbucket download \(name) stays: set BITBUCKET_ACCESS_TOKEN (or BITBUCKET_USERNAME and BITBUCKET_API_TOKEN) so rollback can remove it, or remove it by hand")
        }
        let parts = repository.split(separator: "/").map(String.init)
        let client = BitbucketClient(repository: BitbucketRepository(apiURL: api, workspace: parts.first ?? "", slug: parts.last ?? ""),
                                     credentials: credentials, transport: context.transport(secrets: credentials.secrets),
                                     version: ShiplaneVersion.current)
        guard let found = try await client.downloads().first(where: { $0.name == name }) else { return }
        if let createdOn {
            guard found.createdOn == createdOn, found.size == size else {
                throw ShiplaneError("the Bitbucket download \(name) in \(repository) was replaced after this run uploaded it (now \(found.size) bytes, uploaded \(found.createdOn ?? "at an unknown time")): left as it is")
            }
        } else {
            guard found.size == size, try await client.digest(of: found) == sha256 else {
                throw ShiplaneError("the Bitbucket download \(name) in \(repository) holds other bytes than this run sent (sha256:\(sha256)): left as it is")
            }
        }
        try await client.delete(name: name)
    }
}
