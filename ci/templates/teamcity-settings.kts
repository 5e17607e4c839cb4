// memguard on TeamCity (Kotlin DSL) - copy to .teamcity/settings.kts.
//
// Four build configurations, one per node (--node I/4), and a composite
// "memguard" build that runs them in parallel. The VCS root's credentials
// must be allowed to push refs/notes/memguard. Pull request builds (the Pull
// Requests build feature) compare with their target branch. Assumes
// memguard's sources in ./memguard (a submodule; "." in memguard's own
// repository), your tests at ./build32/my_tests, Debian 12 agents.
import jetbrains.buildServer.configs.kotlin.*
import jetbrains.buildServer.configs.kotlin.buildSteps.script
import jetbrains.buildServer.configs.kotlin.triggers.vcs

version = "2024.03"

const val TOTAL = 4

fun memguardNode(node: Int) = BuildType {
    id("MemguardNode$node")
    name = "memguard node $node/$TOTAL"
    vcs { root(DslContext.settingsRoot) }
    params {
        param("env.MEMGUARD_DIR", "memguard")
        // defaults, so a build without the Pull Requests feature does not wait for them
        param("teamcity.pullRequest.target.branch", "")
        param("teamcity.build.branch.is_default", "true")
    }
    artifactRules = "mem.json\nmemguard-junit.xml\ncompare.md"
    steps {
        script {
            name = "Install dependencies and build"
            scriptContent = """
                set -e
                git fetch --unshallow --quiet 2>/dev/null || true # compare needs the merge base
                git submodule update --init --recursive
                "${'$'}MEMGUARD_DIR/ci/setup"
                cmake -S "${'$'}MEMGUARD_DIR" -B build-memguard -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF
                cmake --build build-memguard --target memguard -j "${'$'}(nproc)"
                cmake -S . -B build32 -DCMAKE_C_FLAGS=-m32 -DCMAKE_CXX_FLAGS=-m32
                cmake --build build32 -j "${'$'}(nproc)"
            """.trimIndent()
        }
        script {
            name = "Run under memguard, store or compare the report"
            scriptContent = """
                export PATH="${'$'}PWD/build-memguard/runner:${'$'}PATH"
                rc=0
                # auto on TeamCity = service messages (tests, buildStatisticValue per shard)
                memguard run --node "$node/$TOTAL" --adapter auto --adapter junit=memguard-junit.xml \
                  --report mem.json -- ./build32/my_tests || rc=${'$'}?
                git config user.name "memguard CI"
                git config user.email "memguard-ci@example.invalid"
                if [ -n "%teamcity.pullRequest.target.branch%" ]; then
                  git fetch origin '+refs/notes/memguard:refs/notes/memguard' || true
                  memguard note mem.json # local only
                  crc=0
                  memguard compare "origin/%teamcity.pullRequest.target.branch%" HEAD --format markdown > compare.md || crc=${'$'}?
                  cat compare.md
                  [ "${'$'}crc" = 0 ] || [ "${'$'}crc" = 1 ] || exit "${'$'}crc"
                elif [ "%teamcity.build.branch.is_default%" = "true" ]; then
                  fetch_notes() {
                    git fetch origin '+refs/notes/memguard:refs/notes/memguard-remote' ||
                      echo "no memguard notes on origin yet"
                  }
                  fetch_notes
                  memguard note mem.json
                  memguard notes-merge refs/notes/memguard-remote
                  pushed=0
                  for try in 1 2 3 4 5 6 7 8; do
                    if git push origin refs/notes/memguard; then pushed=1; break; fi
                    echo "notes push rejected: merging again (${'$'}try/8)"
                    r=${'$'}(od -An -N2 -tu2 /dev/urandom) # jitter in tenths: nodes finish together
                    sleep "${'$'}((try * 2 + r % 5)).${'$'}((r / 5 % 10))"
                    fetch_notes
                    memguard notes-merge refs/notes/memguard-remote
                  done
                  [ "${'$'}pushed" = 1 ] || { echo "could not push refs/notes/memguard" >&2; exit 1; }
                fi
                exit ${'$'}rc
            """.trimIndent()
        }
    }
}

val nodes = (1..TOTAL).map { memguardNode(it) }

project {
    nodes.forEach { buildType(it) }
    buildType(BuildType {
        id("Memguard")
        name = "memguard"
        type = BuildTypeSettings.Type.COMPOSITE
        vcs { root(DslContext.settingsRoot) }
        triggers { vcs { } }
        dependencies { nodes.forEach { snapshot(it) { } } }
    })
}
