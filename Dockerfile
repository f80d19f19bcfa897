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
 && cargo build --release --locked -p neuralis --bin neuralis

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/target/release/neuralis /usr/local/bin/neuralis
USER 65532:65532
EXPOSE 7400
ENTRYPOINT ["/usr/local/bin/neuralis"]
CMD ["serve", "--listen", "0.0.0.0:7400", "--data-dir", "/var/lib/neuralis"]
