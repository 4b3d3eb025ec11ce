# syntax=docker/dockerfile:1
# Any of the three services. Build from the repository root after `./mvnw -DskipTests package`:
#   docker build --build-arg SERVICE=api-service --build-arg PORT=8080 -t agentrun/api-service .
#   docker build --build-arg SERVICE=run-worker  --build-arg PORT=8081 -t agentrun/run-worker .
#   docker build --build-arg SERVICE=event-relay --build-arg PORT=8082 -t agentrun/event-relay .
# The Boot jar is split into its layers (dependencies change rarely, the application often), and the
# process runs as an unprivileged user. /data/files is where api-service keeps uploads (a volume in compose).
ARG SERVICE=api-service

FROM eclipse-temurin:21-jre AS layers
ARG SERVICE
WORKDIR /build
COPY ${SERVICE}/target/${SERVICE}-*-exec.jar app.jar
RUN java -Djarmode=tools -jar app.jar extract --layers --launcher --destination extracted

FROM eclipse-temurin:21-jre
ARG PORT=8080
RUN groupadd --system --gid 10001 agentrun && useradd --system --uid 10001 --gid agentrun --no-create-home agentrun \
    && mkdir -p /data/files && chown 10001:10001 /data/files
WORKDIR /app
COPY --from=layers /build/extracted/dependencies/ ./
COPY --from=layers /build/extracted/spring-boot-loader/ ./
COPY --from=layers /build/extracted/snapshot-dependencies/ ./
COPY --from=layers /build/extracted/application/ ./
USER 10001:10001
ENV PORT=${PORT}
EXPOSE ${PORT}
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "org.springframework.boot.loader.launch.JarLauncher"]
