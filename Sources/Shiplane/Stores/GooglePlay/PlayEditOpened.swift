import Foundation

/// A Google Play edit this run opened (`api`: the API base): deleted unless committed.
public struct PlayEditOpened: Effect, Equatable {
    /// The record's name for it.
    public static let kind = "googleplay.edit"
    /// The API base URL.
    public var api: String
    /// The app's package name.
    public var packageName: String
    /// The edit's id.
    public var editID: String

    /// Describes an edit opened.
    public init(api: String, packageName: String, editID: String) {
        self.api = api
        self.packageName = packageName
        self.editID = editID
    }

    /// On Google Play.
    public var reach: EffectReach { .service }

    /// Deletes the edit.
    /// - Throws: when the service account is not set here, or Google refuses.
    public func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let variables = context.environment.variables.merging([GooglePlayServiceAccount.apiURLVariable: api]) { $1 }
        let account: GooglePlayServiceAccount
        do {
            account = try GooglePlayServiceAccount.fromEnvironment(variables, workingDirectory: context.workTree)
        } catch {
            throw ShiplaneError(
                "the Google Play edit \(editID) stays: the service account is not set here (\(describe(error)))",
                suggestion: "set GOOGLE_PLAY_SERVICE_ACCOUNT_JSON, then run `shiplane rollback`; an open edit expires on its own")
        }
        let client = GooglePlayClient(account: account, packageName: packageName, environment: variables, transport: context.transport())
        try await client.deleteEdit(editID)
    }
}
