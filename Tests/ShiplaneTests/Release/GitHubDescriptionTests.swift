import Foundation
import Testing
@testable import Shiplane

/// The checker the GitHub stand-in runs every API request and answer through, held to the
/// operations of GitHub's published description (github/rest-api-description, transcribed into
/// Tests/ShiplaneTests/Fixtures/Specs/github-rest-api-subset.json with its commit).
@Suite("The GitHub stand-in is checked against GitHub's published API description", .offThePool)
struct GitHubDescriptionTests {
    let spec: OpenAPIDescription

    init() throws {
        spec = try #require(OpenAPIDescription.gitHub, "Tests/ShiplaneTests/Fixtures/Specs/github-rest-api-subset.json cannot be read")
    }

    @Test func theExtractHoldsTheOperationsTheStandInServesAndNamesItsSource() throws {
        #expect(spec.operationNames == [
            "DELETE /repos/{owner}/{repo}/releases/assets/{asset_id}", "DELETE /repos/{owner}/{repo}/releases/{release_id}",
            "GET /repos/{owner}/{repo}", "GET /repos/{owner}/{repo}/attestations/{subject_digest}", "GET /repos/{owner}/{repo}/commits/{ref}",
            "GET /repos/{owner}/{repo}/pulls", "GET /repos/{owner}/{repo}/pulls/{pull_number}",
            "GET /repos/{owner}/{repo}/releases",
            "GET /repos/{owner}/{repo}/releases/assets/{asset_id}", "GET /repos/{owner}/{repo}/releases/tags/{tag}",
            "GET /repos/{owner}/{repo}/releases/{release_id}", "GET /repos/{owner}/{repo}/releases/{release_id}/assets",
            "PATCH /repos/{owner}/{repo}/pulls/{pull_number}",
            "PATCH /repos/{owner}/{repo}/releases/assets/{asset_id}", "PATCH /repos/{owner}/{repo}/releases/{release_id}",
            "POST /repos/{owner}/{repo}/attestations", "POST /repos/{owner}/{repo}/pulls",
            "POST /repos/{owner}/{repo}/releases", "POST /repos/{owner}/{repo}/releases/{release_id}/assets",
        ])
        let data = try Data(contentsOf: URL(fileURLWithPath: packageRoot + "/Tests/ShiplaneTests/Fixtures/Specs/github-rest-api-subset.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let extract = try #require(root["x-shiplane-extract"] as? [String: Any])
        #expect(extract["source"] as? String == "github/rest-api-description, descriptions/api.github.com/api.github.com.json")
        #expect((extract["commit"] as? String)?.count == 40)
    }

    @Test func parametersAndBodiesAreCheckedStrictly() throws {
        let (list, fine) = spec.check(method: "GET", path: "/repos/acme/rocket/releases", query: ["per_page": "100", "page": "2"], body: [])
        #expect(list?.template == "/repos/{owner}/{repo}/releases")
        #expect(fine.isEmpty, "\(fine)")
        #expect(spec.check(method: "GET", path: "/repos/acme/rocket/releases", query: ["per_page": "many"], body: []).1
            == ["GET /repos/{owner}/{repo}/releases: query per_page=many is not an integer"])
        #expect(spec.check(method: "GET", path: "/repos/acme/rocket/releases", query: ["draft": "true"], body: []).1
            == ["GET /repos/{owner}/{repo}/releases: query parameter draft is not declared"])
        #expect(spec.check(method: "PATCH", path: "/repos/acme/rocket/releases/abc", query: [:], body: Array(#"{"draft":false}"#.utf8)).1
            == ["PATCH /repos/{owner}/{repo}/releases/{release_id}: path parameter release_id=abc is not an integer"])
        // A tag with an encoded slash stays one segment.
        #expect(spec.check(method: "GET", path: "/repos/acme/rocket/releases/tags/release%2F1.0", query: [:], body: []).0?.template
            == "/repos/{owner}/{repo}/releases/tags/{tag}")
        #expect(spec.check(method: "POST", path: "/repos/acme/rocket/releases", query: [:], body: Array(#"{"name":"x"}"#.utf8)).1
            == ["POST /repos/{owner}/{repo}/releases: request body misses required member tag_name"])
        #expect(spec.check(method: "POST", path: "/repos/acme/rocket/releases", query: [:], body: Array(#"{"tag_name":"v1","latest":true}"#.utf8)).1
            == ["POST /repos/{owner}/{repo}/releases: request body has member latest, which the schema does not declare"])
        #expect(spec.check(method: "POST", path: "/repos/acme/rocket/releases/7/assets", query: ["label": "x"], body: [1, 2]).1
            == ["POST /repos/{owner}/{repo}/releases/{release_id}/assets: required query parameter name is missing"])
        #expect(spec.check(method: "POST", path: "/repos/acme/rocket/releases/7/assets", query: ["name": "a.zip"], body: [1, 2]).1.isEmpty)
        #expect(spec.check(method: "PUT", path: "/repos/acme/rocket/releases/7", query: [:], body: []).1
            == ["PUT /repos/acme/rocket/releases/7 is not an operation of GitHub v3 REST API"])
    }

    @Test func answersAreCheckedAgainstTheSchemaForTheirStatus() throws {
        let upload = try #require(spec.operation(method: "POST", path: "/repos/acme/rocket/releases/7/assets"))
        // The description documents the taken name's 422 without a body.
        #expect(spec.check(answer: 422, body: nil, to: upload).isEmpty)
        #expect(spec.check(answer: 422, body: ["message": "Validation Failed"], to: upload)
            == ["POST /repos/{owner}/{repo}/releases/{release_id}/assets answered 422 with a body, which it documents without one"])
        let rename = try #require(spec.operation(method: "PATCH", path: "/repos/acme/rocket/releases/assets/3"))
        #expect(spec.check(answer: 422, body: ["message": "Validation Failed"], to: rename)
            == ["PATCH /repos/{owner}/{repo}/releases/assets/{asset_id} answered 422, which it does not document"])
        let byTag = try #require(spec.operation(method: "GET", path: "/repos/acme/rocket/releases/tags/v1"))
        #expect(spec.check(answer: 404, body: ["message": "Not Found", "documentation_url": "https://docs.github.com/rest"], to: byTag).isEmpty)
        let thin: [String: Any] = ["id": 1, "tag_name": "v1", "name": "v1", "draft": false, "prerelease": false]
        let problems = spec.check(answer: 200, body: thin, to: byTag)
        #expect(problems.contains("GET /repos/{owner}/{repo}/releases/tags/{tag}: answer 200 misses required member upload_url"))
        #expect(problems.contains("GET /repos/{owner}/{repo}/releases/tags/{tag}: answer 200 misses required member author"))
        // A member whose schema the extract leaves out is refused, not waved through.
        let create = try #require(spec.operation(method: "POST", path: "/repos/acme/rocket/releases"))
        #expect(spec.check(answer: 201, body: ["reactions": ["total_count": 0]], to: create)
            .contains("POST /repos/{owner}/{repo}/releases: answer 201/reactions needs schema reaction-rollup, which the description file does not hold"))
        let created = try #require(spec.operation(method: "POST", path: "/repos/acme/rocket/releases"))
        #expect(spec.check(answer: 422, body: ["message": "Validation Failed", "errors": [["code": "already_exists"]]], to: created)
            == ["POST /repos/{owner}/{repo}/releases: answer 422 misses required member documentation_url"])
    }

    /// The pulls operations a protected tap's pull request uses (`pulls/list`, `pulls/create`,
    /// `pulls/get`, `pulls/update`): requests and answers held to the transcribed schemas.
    @Test func pullRequestsAreCheckedStrictly() throws {
        #expect(spec.check(method: "GET", path: "/repos/acme/tap/pulls", query: ["state": "open", "head": "acme:shiplane/demo-1.2.0", "base": "main", "per_page": "100"], body: []).1.isEmpty)
        #expect(spec.check(method: "GET", path: "/repos/acme/tap/pulls", query: ["state": "opened"], body: []).1
            == ["GET /repos/{owner}/{repo}/pulls: query state=opened is not one of open, closed, all"])
        #expect(spec.check(method: "GET", path: "/repos/acme/tap/pulls", query: ["source_branch": "x"], body: []).1
            == ["GET /repos/{owner}/{repo}/pulls: query parameter source_branch is not declared"])
        #expect(spec.check(method: "POST", path: "/repos/acme/tap/pulls", query: [:],
                           body: Array(#"{"title":"t","head":"b","base":"main","body":"x","maintainer_can_modify":true}"#.utf8)).1.isEmpty)
        #expect(spec.check(method: "POST", path: "/repos/acme/tap/pulls", query: [:], body: Array(#"{"title":"t","base":"main"}"#.utf8)).1
            == ["POST /repos/{owner}/{repo}/pulls: request body misses required member head"])
        #expect(spec.check(method: "POST", path: "/repos/acme/tap/pulls", query: [:], body: Array(#"{"head":"b","base":"main","description":"x"}"#.utf8)).1
            == ["POST /repos/{owner}/{repo}/pulls: request body has member description, which the schema does not declare"])
        #expect(spec.check(method: "PATCH", path: "/repos/acme/tap/pulls/3", query: [:], body: Array(#"{"state":"closed"}"#.utf8)).1.isEmpty)
        #expect(spec.check(method: "PATCH", path: "/repos/acme/tap/pulls/3", query: [:], body: Array(#"{"state_event":"close"}"#.utf8)).1
            == ["PATCH /repos/{owner}/{repo}/pulls/{pull_number}: request body has member state_event, which the schema does not declare"])
        #expect(spec.check(method: "PATCH", path: "/repos/acme/tap/pulls/3", query: [:], body: Array(#"{"state":"merged"}"#.utf8)).1
            == ["PATCH /repos/{owner}/{repo}/pulls/{pull_number}: request body/state is merged, not one of open, closed"])
        #expect(spec.check(method: "GET", path: "/repos/acme/tap/pulls/three", query: [:], body: []).1
            == ["GET /repos/{owner}/{repo}/pulls/{pull_number}: path parameter pull_number=three is not an integer"])
        // An answer with the members a client reads and nothing more is not a pull-request.
        let get = try #require(spec.operation(method: "GET", path: "/repos/acme/tap/pulls/3"))
        let thin: [String: Any] = ["number": 3, "state": "open", "html_url": "https://github.com/acme/tap/pull/3",
                                   "merged_at": NSNull(), "head": ["ref": "b", "sha": "c0ffee"], "base": ["ref": "main", "sha": "beef"]]
        let problems = spec.check(answer: 200, body: thin, to: get)
        for member in ["_links", "user", "author_association", "mergeable_state", "merged"] {
            #expect(problems.contains("GET /repos/{owner}/{repo}/pulls/{pull_number}: answer 200 misses required member \(member)"), "\(problems)")
        }
        #expect(problems.contains("GET /repos/{owner}/{repo}/pulls/{pull_number}: answer 200/head misses required member repo"), "\(problems)")
        // The list answers pull-request-simple, which has no `merged`.
        let list = try #require(spec.operation(method: "GET", path: "/repos/acme/tap/pulls"))
        #expect(spec.check(answer: 200, body: [["merged": false]], to: list)
            .contains("GET /repos/{owner}/{repo}/pulls: answer 200/0 has member merged, which the schema does not declare"))
    }

    @Test func theStandInRecordsARequestTheDescriptionRefuses() async throws {
        try await withTransport { transport, _ in
            let github = FakeGitHub()
            try await github.start()
            defer { github.stop() }
            let response = try await transport.send(HTTPRequest(
                method: .get, url: github.baseURL + "/repos/acme/rocket/releases?draft=true",
                headers: [("Authorization", "Bearer \(github.token)")]))
            #expect(response.status == 422)
            #expect(github.takeViolations() == ["GET /repos/{owner}/{repo}/releases: query parameter draft is not declared"])
            let fine = try await transport.send(HTTPRequest(
                method: .get, url: github.baseURL + "/repos/acme/rocket", headers: [("Authorization", "Bearer \(github.token)")]))
            #expect(fine.status == 200)
            #expect(github.ledger.checkedRequests == 2)
            #expect(github.ledger.operationsSeen.keys.sorted() == ["GET /repos/{owner}/{repo}", "GET /repos/{owner}/{repo}/releases"])
        }
    }
}
