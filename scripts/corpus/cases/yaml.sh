# yaml.sh: OpenAPI documents (ReadMe's example set from npm, YAML and JSON)
# read with an intent, and yamllint on a GitHub-style workflow with one
# fault put in. Needles follow the rule in docs/bench.md: the key line of
# the path, operation or schema asked about, found by a pattern. Sourced by
# make.sh.

oas=$work/node-tools/node_modules/@readme/oas-examples

# oas_case NAME FILE INTENT PCRE...: a read of FILE with an intent; one
# needle per PCRE (the first line it matches).
oas_case() {
	local name=$1 file=$2 intent=$3 kind=file
	shift 3
	selected "$name" || return 0
	node_tools
	if [ ! -f "$file" ]; then
		echo "error: $name: $file does not exist here" >&2
		failures=$((failures + 1))
		return
	fi
	local re
	for re in "$@"; do needle_re "$re" 'the key asked about'; done
	case $name in json-*) kind=json ;; esac
	save_case "$name" "$kind" read_file "$(jq -n --arg p "$file" --arg i "$intent" '{path: $p, intent: $i}')" <"$file"
}

y=$oas/3.0/yaml
oas_case file-yaml-openapi-startrek-species $y/star-trek.yaml 'the search endpoint for species and its parameters' "^  '/species/search':"
oas_case file-yaml-openapi-startrek-schema $y/star-trek.yaml 'the fields of SpeciesFullResponse' '^    SpeciesFullResponse:'
oas_case file-yaml-openapi-startrek-servers $y/star-trek.yaml 'the server url of the API' '^  - url: .*'
oas_case file-yaml-openapi-readme-categories $y/readme.yaml 'how to create a category' "^  '/categories':" '^      operationId: createCategory'
oas_case file-yaml-openapi-readme-apikey $y/readme.yaml 'how requests authenticate' '^    apiKey:'
oas_case file-yaml-openapi-security-oauth $y/security.yaml 'the OAuth2 flows and their scopes' '^    oauth2:'
oas_case file-yaml-openapi-params-deepobject $y/parameters-style.yaml 'how a deepObject query parameter is sent' "^  '/anything/query/deepObject':"
oas_case file-yaml-openapi-status-418 $y/http-status-codes.yaml 'the 418 response' "^        '418':"
oas_case file-yaml-openapi-schema-types $y/schema-types.yaml 'how a nullable string is declared' '^ +nullable: true'
oas_case file-yaml-openapi-uspto-search $y/uspto.yaml 'the fields of the dataset search request' '^  /\{dataset\}/\{version\}/records:'
j=$oas/3.0/json
oas_case json-openapi-petstore-expanded $j/petstore-expanded.json 'the operation that deletes a pet' '"operationId": "deletePet"'
oas_case json-openapi-callbacks $j/callbacks.json 'the callback url expression' '"\{\$request\.query\.callbackUrl\}/data": \{'
oas_case json-openapi-readme $j/readme.json 'how to upload a spec' '"operationId": "uploadAPISpecification"'
oas_case json-openapi-startrek-book $j/star-trek.json 'the search endpoint for books' '"/book/search": \{'

# yamllint: a workflow with warnings, one error put in.
yaml_fault() {
	local name=yamllint-$1
	selected "command-$name" || return 0
	fresh "$name"
	mkdir -p .github/workflows
	cat >.github/workflows/ci.yml <<'EOF'
name: ci
on:
  push:
    branches: [ main ]
  pull_request:
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        go: [ '1.22', '1.23' ]
        os: [ ubuntu-latest, macos-latest ]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version: ${{ matrix.go }}
      - run: go vet ./...
      - run: go test -race ./...
      - name: lint
        run: |
          gofmt -l . | tee /tmp/fmt
          test ! -s /tmp/fmt
  release:
    needs: test
    if: startsWith(github.ref, 'refs/tags/')
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: make release
EOF
	inject .github/workflows/ci.yml "$2"
	needle_re '^ +\d+:\d+ +error +.*' 'the error among the warnings, at line:col'
	cmd_case "$name" 'yamllint .github/workflows/ci.yml' 'Lint the CI workflow'
}
yaml_fault duplicate-key 's/    runs-on: ubuntu-latest\n    strategy:/    runs-on: ubuntu-latest\n    runs-on: ubuntu-22.04\n    strategy:/'
yaml_fault indentation 's/      - run: go vet \.\/\.\.\./       - run: go vet .\/.../'
yaml_fault syntax 's/        with:\n          go-version: \$\{\{ matrix.go \}\}/        with:\n          go-version: \$\{\{ matrix.go }}: x/'
