#!/bin/sh
# Copies real YAML documents (a linter configuration and a CI workflow, both
# mappings at their top level) from Go modules in the module cache.
set -eu
cd "$(dirname "$0")"
go mod download -json go.opentelemetry.io/otel@v1.33.0 github.com/redis/go-redis/v9@v9.23.0 >/dev/null
m=$(go env GOMODCACHE)
cp "$m/go.opentelemetry.io/otel@v1.33.0/.golangci.yml" otel-golangci.yml
cp "$m/github.com/redis/go-redis/v9@v9.23.0/.github/workflows/build.yml" go-redis-build.yml
chmod 644 ./*.yml
