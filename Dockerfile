# ticklab hub in a container: the page built and carried inside the binary, run as a user
# that is not root. deploy/compose.yaml runs two of these behind Caddy, on PostgreSQL
# (docs/deploy.md).

# The build: the toolchain rust-toolchain.toml pins, the page (wasm, by `cargo xtask web`),
# then the command, which carries the page.
FROM rust:1.95.0-bookworm AS build
WORKDIR /src
COPY . .
RUN rustup target add wasm32-unknown-unknown \
    && cargo xtask web \
    && cargo build --release --locked -p ticklab-native --bin ticklab \
    && cp target/release/ticklab /ticklab

# The image: Debian's slim base (glibc, which the command links), the binary, no shell
# access needed.
FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin ticklab
COPY --from=build /ticklab /usr/local/bin/ticklab
USER 10001:10001
ENV TICKLAB_BIND=0.0.0.0 \
    TICKLAB_PORT=8080 \
    TICKLAB_LOG_FORMAT=json
EXPOSE 8080
# SIGTERM drains: posts go elsewhere, those in flight finish, live views are told to come
# again; give it the seconds that takes (compose's stop_grace_period).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/ticklab", "hub"]
