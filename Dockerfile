# syntax=docker/dockerfile:1
# The one `neuralis` binary on a distroless base: no shell, non-root.
#
# The dependencies are built from a skeleton of the workspace (manifests, build
# scripts and protos; every other Rust file an identical empty `main`), so their layer
# is reused until a manifest or Cargo.lock changes; the project's own code is built on
# top of it.

FROM rust:1.95-slim-bookworm AS skeleton
WORKDIR /src
COPY . .
RUN printf 'fn main() {}\n' > /tmp/stub.rs \
 && find libs services tests -name '*.rs' ! -name build.rs -exec cp /tmp/stub.rs {} \; \
 && find libs services tests -type f ! -name '*.rs' ! -name Cargo.toml ! -name '*.proto' -delete

FROM rust:1.95-slim-bookworm AS dependencies
WORKDIR /src
COPY --from=skeleton /src/ ./
RUN cargo build --release --locked -p neuralis --bin neuralis

FROM dependencies AS build
COPY . .
# The sources are older than the stub build's outputs: make cargo see them as new.
RUN find libs services tests -name '*.rs' -exec touch {} + \
 && cargo build --release --locked -p neuralis --bin neuralis \
 && mkdir -p /out/var/lib/neuralis

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/target/release/neuralis /usr/local/bin/neuralis
# The data directory (embedded stores, the local signing key) belongs to the user the
# image runs as, and is a volume: `docker run IMAGE` with no arguments serves.
COPY --from=build --chown=65532:65532 /out/var/lib/neuralis /var/lib/neuralis
VOLUME ["/var/lib/neuralis"]
USER 65532:65532
EXPOSE 7400
ENTRYPOINT ["/usr/local/bin/neuralis"]
CMD ["serve", "--listen", "0.0.0.0:7400", "--data-dir", "/var/lib/neuralis"]
