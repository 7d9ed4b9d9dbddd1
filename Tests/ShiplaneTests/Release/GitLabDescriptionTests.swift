import Foundation
import Testing
@testable import Shiplane

/// The checker the GitLab stand-in runs every API request and answer through, held to the
/// operations of GitLab's published description (doc/api/openapi/openapi_v2.yaml, transcribed into
/// Tests/ShiplaneTests/Fixtures/Specs/gitlab-rest-api-subset.json with its commit and what came from
/// GitLab's documentation instead).
@Suite("The GitLab stand-in is checked against GitLab's published API description", .offThePool)
struct GitLabDescriptionTests {
    let spec: OpenAPIDescription

    init() throws {
        spec = try #require(OpenAPIDescription.gitLab, "Tests/ShiplaneTests/Fixtures/Specs/gitlab-rest-api-subset.json cannot be read")
    }

    @Test func theExtractHoldsTheOperationsTheClientSendsAndNamesItsSources() throws {
        #expect(spec.operationNames == [
            "DELETE /api/v4/projects/{id}/packages/{package_id}/package_files/{package_file_id}",
            "DELETE /api/v4/projects/{id}/releases/{tag_name}",
            "DELETE /api/v4/projects/{id}/releases/{tag_name}/assets/links/{link_id}",
            "GET /api/v4/projects/{id}/merge_requests", "GET /api/v4/projects/{id}/merge_requests/{merge_request_iid}",
            "GET /api/v4/projects/{id}/milestones", "GET /api/v4/projects/{id}/packages",
            "GET /api/v4/projects/{id}/packages/generic/{package_name}/{package_version}/{file_name}",
            "GET /api/v4/projects/{id}/packages/{package_id}/package_files", "GET /api/v4/projects/{id}/releases",
            "GET /api/v4/projects/{id}/releases/{tag_name}", "GET /api/v4/projects/{id}/releases/{tag_name}/assets/links",
            "GET /api/v4/projects/{id}/releases/{tag_name}/assets/links/{link_id}",
            "GET /api/v4/projects/{id}/repository/tags/{tag_name}",
            "POST /api/v4/projects/{id}/merge_requests",
            "POST /api/v4/projects/{id}/releases", "POST /api/v4/projects/{id}/releases/{tag_name}/assets/links",
            "PUT /api/v4/projects/{id}/merge_requests/{merge_request_iid}",
            "PUT /api/v4/projects/{id}/packages/generic/{package_name}/{package_version}/{file_name}",
            "PUT /api/v4/projects/{id}/releases/{tag_name}", "PUT /api/v4/projects/{id}/releases/{tag_name}/assets/links/{link_id}",
        ])
        let data = try Data(contentsOf: URL(fileURLWithPath: packageRoot + "/Tests/ShiplaneTests/Fixtures/Specs/gitlab-rest-api-subset.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let extract = try #require(root["x-shiplane-extract"] as? [String: Any])
        #expect((extract["source"] as? String)?.hasPrefix("gitlabhq/gitlabhq (GitLab's GitHub mirror), doc/api/openapi/openapi_v2.yaml") == true)
        #expect((extract["commit"] as? String)?.count == 40)
        // What the v2 file lacks is said, with the documentation page used instead.
        let corrections = try #require(extract["corrections"] as? [String])
        #expect(corrections.contains { $0.contains("doc/api/milestones.md") && $0.contains("doc/api/packages.md") })
    }

    /// The merge request operations (a Homebrew tap's merge request), from the same description.
    @Test func mergeRequestsAreCheckedStrictly() throws {
        let path = "/api/v4/projects/acme%2Fhomebrew-tap/merge_requests"
        let (list, fine) = spec.check(method: "GET", path: path, query: ["state": "opened", "source_branch": "shiplane/demo-1.2.0", "target_branch": "main", "per_page": "100"], body: [])
        #expect(list?.template == "/api/v4/projects/{id}/merge_requests")
        #expect(fine.isEmpty, "\(fine)")
        #expect(spec.check(method: "GET", path: path, query: ["state": "open"], body: []).1
            == ["GET /api/v4/projects/{id}/merge_requests: query state=open is not one of opened, closed, locked, merged, all"])
        #expect(spec.check(method: "POST", path: path, query: [:], body: Array(#"{"title":"demo 1.2.0","source_branch":"b"}"#.utf8)).1
            == ["POST /api/v4/projects/{id}/merge_requests: request body misses required member target_branch"])
        #expect(spec.check(method: "POST", path: path, query: [:], body: Array(#"{"title":"t","source_branch":"b","target_branch":"main","head":"b"}"#.utf8)).1
            == ["POST /api/v4/projects/{id}/merge_requests: request body has member head, which the schema does not declare"])
        #expect(spec.check(method: "PUT", path: path + "/3", query: [:], body: Array(#"{"state_event":"close"}"#.utf8)).1.isEmpty)
        #expect(spec.check(method: "PUT", path: path + "/3", query: [:], body: Array(#"{"state_event":"closed"}"#.utf8)).1
            == ["PUT /api/v4/projects/{id}/merge_requests/{merge_request_iid}: request body/state_event is closed, not one of close, reopen"])
        let corrections = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: packageRoot + "/Tests/ShiplaneTests/Fixtures/Specs/gitlab-rest-api-subset.json"))) as? [String: Any])?["x-shiplane-extract"] as? [String: Any])["corrections"] as? [String]
        #expect(corrections?.contains { $0.contains("postApiV4ProjectsIdMergeRequests") && $0.contains("API_Entities_MergeRequestBasic") } == true)
    }

    @Test func parametersAndBodiesAreCheckedStrictly() throws {
        let (list, fine) = spec.check(method: "GET", path: "/api/v4/projects/acme%2Frocket/releases", query: ["per_page": "100", "page": "2"], body: [])
        #expect(list?.template == "/api/v4/projects/{id}/releases")
        #expect(fine.isEmpty, "\(fine)")
        #expect(spec.check(method: "GET", path: "/api/v4/projects/42/packages", query: ["package_type": "tarball"], body: []).1
            == ["GET /api/v4/projects/{id}/packages: query package_type=tarball is not one of maven, npm, conan, nuget, pypi, composer, generic, golang, debian, rubygems, helm, terraform_module, rpm, ml_model, cargo"])
        #expect(spec.check(method: "DELETE", path: "/api/v4/projects/42/packages/7/package_files/x", query: [:], body: []).1
            == ["DELETE /api/v4/projects/{id}/packages/{package_id}/package_files/{package_file_id}: path parameter package_file_id=x is not an integer"])
        #expect(spec.check(method: "POST", path: "/api/v4/projects/42/releases", query: [:], body: Array(#"{"name":"x"}"#.utf8)).1
            == ["POST /api/v4/projects/{id}/releases: request body misses required member tag_name"])
        #expect(spec.check(method: "POST", path: "/api/v4/projects/42/releases", query: [:],
                           body: Array(#"{"tag_name":"v1","assets":{"links":[{"name":"a","url":"https://x","size":3}]}}"#.utf8)).1
            == ["POST /api/v4/projects/{id}/releases: request body/assets/links/0 has member size, which the schema does not declare"])
        #expect(spec.check(method: "POST", path: "/api/v4/projects/42/releases/v1/assets/links", query: [:],
                           body: Array(#"{"name":"a","url":"https://x","link_type":"binary"}"#.utf8)).1
            == ["POST /api/v4/projects/{id}/releases/{tag_name}/assets/links: request body/link_type is binary, not one of other, runbook, image, package"])
        let upload = "/api/v4/projects/42/packages/generic/rocket/v1.0.0/app.tar.gz"
        #expect(spec.check(method: "PUT", path: upload, query: ["select": "package_file"], body: [1, 2]).1.isEmpty)
        #expect(spec.check(method: "PUT", path: upload, query: ["select": "package"], body: [1, 2]).1
            == ["PUT /api/v4/projects/{id}/packages/generic/{package_name}/{package_version}/{file_name}: query select=package is not one of package_file"])
        #expect(spec.check(method: "PUT", path: upload, query: [:], body: []).1
            == ["PUT /api/v4/projects/{id}/packages/generic/{package_name}/{package_version}/{file_name}: the request body is required"])
    }

    @Test func answersAreCheckedAgainstTheSchemaForTheirStatus() throws {
        let create = try #require(spec.operation(method: "POST", path: "/api/v4/projects/42/releases"))
        let release: [String: Any] = ["tag_name": "v1", "name": "v1", "description": "",
                                      "assets": ["count": 1, "sources": [], "links": [["id": 3, "name": "a", "url": "https://x", "link_type": "other"]]]]
        #expect(spec.check(answer: 201, body: release, to: create).isEmpty)
        #expect(spec.check(answer: 201, body: ["tag_name": "v1", "assets": ["links": [["id": "3"]]]], to: create)
            == ["POST /api/v4/projects/{id}/releases: answer 201/assets/links/0/id is not an integer"])
        // A member whose schema the extract leaves out is refused, not waved through.
        let packages = try #require(spec.operation(method: "GET", path: "/api/v4/projects/42/packages"))
        #expect(spec.check(answer: 200, body: [["id": 1, "pipeline": ["id": 2]]], to: packages)
            == ["GET /api/v4/projects/{id}/packages: answer 200/0/pipeline needs schema API_Entities_Package_Pipeline, which the description file does not hold"])
        // The description documents a deleted release as 204; that answer carries no content.
        let delete = try #require(spec.operation(method: "DELETE", path: "/api/v4/projects/42/releases/v1"))
        #expect(spec.check(answer: 204, body: nil, to: delete).isEmpty)
        #expect(spec.check(answer: 200, body: release, to: delete) == ["DELETE /api/v4/projects/{id}/releases/{tag_name} answered 200, which it does not document"])
    }

    @Test func theStandInRecordsRequestsAndAnswersTheDescriptionRefuses() async throws {
        try await withTransport { transport, _ in
            try await withFakeGitLab { gitlab in
                let headers = [("PRIVATE-TOKEN", gitlab.token), ("Content-Type", "application/json")]
                let refused = try await transport.send(HTTPRequest(
                    method: .post, url: gitlab.apiURL + "/projects/42/releases", headers: headers, body: .bytes(Array(#"{"tag_name":"v1","latest":true}"#.utf8))))
                #expect(refused.status == 400)
                #expect(gitlab.takeViolations() == ["POST /api/v4/projects/{id}/releases: request body has member latest, which the schema does not declare"])
                gitlab.addTag("v1")
                let made = try await transport.send(HTTPRequest(
                    method: .post, url: gitlab.apiURL + "/projects/acme%2Frocket/releases", headers: headers, body: .bytes(Array(#"{"tag_name":"v1"}"#.utf8))))
                #expect(made.status == 201)
                // An error answer in GitLab's form (409 is documented without a body) passes; the list answer too.
                let again = try await transport.send(HTTPRequest(
                    method: .post, url: gitlab.apiURL + "/projects/42/releases", headers: headers, body: .bytes(Array(#"{"tag_name":"v1"}"#.utf8))))
                #expect(again.status == 409)
                let listed = try await transport.send(HTTPRequest(method: .get, url: gitlab.apiURL + "/projects/42/releases?per_page=1", headers: headers))
                #expect(listed.status == 200)
                #expect(gitlab.violations.isEmpty, "\(gitlab.violations)")
                #expect(gitlab.ledger.checkedRequests == 4)
                #expect(gitlab.ledger.operationsSeen.keys.sorted() == ["GET /api/v4/projects/{id}/releases", "POST /api/v4/projects/{id}/releases"])
            }
        }
    }
}
