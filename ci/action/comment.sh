#!/bin/sh
# comment.sh BODY.md: ONE comment on pull request $MG_PR holds memguard's
# comparison, updated in place: the comment carrying the marker
# <!-- memguard:compare --> (<!-- memguard:compare:KEY --> with
# $MG_COMMENT_KEY, one comment per key: a node's own) is found among the pull request's comments
# (GET, every page) and edited (PATCH); only when there is none is one made
# (POST). The trend link ($MG_TREND_URL) goes under the table. A pull request
# from a fork ($MG_HEAD_REPO is not $GITHUB_REPOSITORY) is skipped with a
# line saying why: its token cannot write comments. REST API at
# $GITHUB_API_URL (default https://api.github.com) with $GITHUB_TOKEN;
# MG_DRY_RUN=1 prints the calls instead of making them. Needs curl and jq.
set -u
body_file=$1
marker="<!-- memguard:compare${MG_COMMENT_KEY:+:$MG_COMMENT_KEY} -->"
api=${GITHUB_API_URL:-https://api.github.com}
repo=${GITHUB_REPOSITORY:?}
pr=${MG_PR:?}
if [ -n "${MG_HEAD_REPO:-}" ] && [ "$MG_HEAD_REPO" != "$repo" ]; then
	echo "memguard: pull request #$pr comes from the fork $MG_HEAD_REPO: its token cannot write a comment here; the comparison is in this job's summary"
	exit 0
fi
command -v jq >/dev/null || { echo "::error::memguard: jq is needed for the comment"; exit 3; }
body=$(
	printf '%s\n### memguard: memory against the base branch\n\n' "$marker"
	cat "$body_file"
	[ -z "${MG_TREND_URL:-}" ] || printf '\n[memory over history](%s)\n' "$MG_TREND_URL"
)
payload=$(jq -n --arg body "$body" '{body: $body}')
call() { # METHOD PATH [DATA]: the response body on stdout
	if [ -n "${MG_DRY_RUN:-}" ]; then
		echo "memguard: dry run: $1 $api$2" >&2
		[ "$1" = GET ] && echo '[]'
		return 0
	fi
	curl -fsS -X "$1" -H "Authorization: Bearer $GITHUB_TOKEN" \
		-H "Accept: application/vnd.github+json" -H "X-GitHub-Api-Version: 2022-11-28" \
		${3:+-H "Content-Type: application/json" --data "$3"} "$api$2"
}
id=
page=1
while [ -z "$id" ]; do
	list=$(call GET "/repos/$repo/issues/$pr/comments?per_page=100&page=$page") || exit 3
	[ "$(printf '%s' "$list" | jq 'length')" -gt 0 ] || break
	id=$(printf '%s' "$list" | jq -r --arg m "$marker" \
		'[.[] | select(.body | startswith($m))][0].id // empty')
	page=$((page + 1))
done
if [ -n "$id" ]; then
	call PATCH "/repos/$repo/issues/comments/$id" "$payload" >/dev/null || exit 3
	echo "memguard: updated comment $id on pull request #$pr"
else
	new=$(call POST "/repos/$repo/issues/$pr/comments" "$payload") || exit 3
	echo "memguard: commented on pull request #$pr (comment $(printf '%s' "$new" | jq -r '.id // "?"'))"
fi
