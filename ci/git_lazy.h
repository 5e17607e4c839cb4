/*
 * git_lazy.h - libgit2 as ci/ calls it: loaded when a command first needs
 * it (ci_git_load), not linked, so `memguard run` starts without it and
 * the fifteen libraries it links (Kerberos, mbedTLS, OpenSSL's libcrypto,
 * libssh2...: 2.1 ms of CPU of every start, measured here) and loads it in
 * the thread that reads the commit's identity, beside the listing. Every
 * libgit2 function ci/ calls is in CI_GIT_FNS; each name below stands for
 * the loaded one (ci_git(): the table, loaded at its first use). ci/'s own
 * files only (MG_CI_LAZY_GIT, set for mg_ci): a test that includes ci_int.h
 * and calls libgit2 itself links it.
 */
#ifndef MG_CI_GIT_LAZY_H
#define MG_CI_GIT_LAZY_H

#include <git2.h>

#include "mg_dl.h"
#include "mg_err.h"

#define CI_GIT_FNS(X)                                                                              \
	X(git_blob_create_from_stream)                                                             \
	X(git_blob_create_from_stream_commit)                                                      \
	X(git_blob_free)                                                                           \
	X(git_blob_id)                                                                             \
	X(git_blob_lookup)                                                                         \
	X(git_blob_rawcontent)                                                                     \
	X(git_blob_rawsize)                                                                        \
	X(git_commit_create)                                                                       \
	X(git_commit_free)                                                                         \
	X(git_commit_id)                                                                           \
	X(git_commit_lookup)                                                                       \
	X(git_commit_parent)                                                                       \
	X(git_commit_parentcount)                                                                  \
	X(git_commit_summary)                                                                      \
	X(git_commit_time)                                                                         \
	X(git_commit_tree)                                                                         \
	X(git_error_clear)                                                                         \
	X(git_error_last)                                                                          \
	X(git_graph_descendant_of)                                                                 \
	X(git_libgit2_init)                                                                        \
	X(git_libgit2_shutdown)                                                                    \
	X(git_merge_base)                                                                          \
	X(git_note_next)                                                                           \
	X(git_object_free)                                                                         \
	X(git_object_id)                                                                           \
	X(git_object_peel)                                                                         \
	X(git_oid_cmp)                                                                             \
	X(git_oid_cpy)                                                                             \
	X(git_oid_equal)                                                                           \
	X(git_oid_fromstr)                                                                         \
	X(git_oid_tostr)                                                                           \
	X(git_reference_create)                                                                    \
	X(git_reference_create_matching)                                                           \
	X(git_reference_free)                                                                      \
	X(git_reference_is_branch)                                                                 \
	X(git_reference_is_valid_name)                                                             \
	X(git_reference_lookup)                                                                    \
	X(git_reference_name_to_id)                                                                \
	X(git_reference_peel)                                                                      \
	X(git_reference_shorthand)                                                                 \
	X(git_repository_free)                                                                     \
	X(git_repository_head)                                                                     \
	X(git_repository_is_bare)                                                                  \
	X(git_repository_is_shallow)                                                               \
	X(git_repository_open_ext)                                                                 \
	X(git_repository_path)                                                                     \
	X(git_revparse_single)                                                                     \
	X(git_revwalk_free)                                                                        \
	X(git_revwalk_new)                                                                         \
	X(git_revwalk_next)                                                                        \
	X(git_revwalk_push)                                                                        \
	X(git_revwalk_push_range)                                                                  \
	X(git_revwalk_simplify_first_parent)                                                       \
	X(git_signature_default)                                                                   \
	X(git_signature_free)                                                                      \
	X(git_signature_now)                                                                       \
	X(git_status_byindex)                                                                      \
	X(git_status_list_entrycount)                                                              \
	X(git_status_list_free)                                                                    \
	X(git_status_list_new)                                                                     \
	X(git_status_options_init)                                                                 \
	X(git_tree_create_updated)                                                                 \
	X(git_tree_entry_byindex)                                                                  \
	X(git_tree_entry_filemode)                                                                 \
	X(git_tree_entry_id)                                                                       \
	X(git_tree_entry_name)                                                                     \
	X(git_tree_entry_type)                                                                     \
	X(git_tree_entrycount)                                                                     \
	X(git_tree_free)                                                                           \
	X(git_tree_lookup)                                                                         \
	X(git_treebuilder_free)                                                                    \
	X(git_treebuilder_insert)                                                                  \
	X(git_treebuilder_new)                                                                     \
	X(git_treebuilder_write)

typedef MG_DL_TABLE(CI_GIT_FNS) ci_git_fns;

/* 0 once libgit2 is loaded (the first call loads it, once a process, in
 * whichever thread); <0 with err naming the library and why. */
int ci_git_load(mg_err *err);
/* The loaded functions; where libgit2 cannot be loaded, a message on
 * stderr and exit 3 (MG_EXIT_INFRA): each entry of ci/ calls ci_git_load
 * first, so this is for a path that did not. */
const ci_git_fns *ci_git(void);

#ifndef CI_GIT_TABLE /* git_lazy.c: the table's own names */
#define git_blob_create_from_stream        (ci_git()->git_blob_create_from_stream)
#define git_blob_create_from_stream_commit (ci_git()->git_blob_create_from_stream_commit)
#define git_blob_free                      (ci_git()->git_blob_free)
#define git_blob_id                        (ci_git()->git_blob_id)
#define git_blob_lookup                    (ci_git()->git_blob_lookup)
#define git_blob_rawcontent                (ci_git()->git_blob_rawcontent)
#define git_blob_rawsize                   (ci_git()->git_blob_rawsize)
#define git_commit_create                  (ci_git()->git_commit_create)
#define git_commit_free                    (ci_git()->git_commit_free)
#define git_commit_id                      (ci_git()->git_commit_id)
#define git_commit_lookup                  (ci_git()->git_commit_lookup)
#define git_commit_parent                  (ci_git()->git_commit_parent)
#define git_commit_parentcount             (ci_git()->git_commit_parentcount)
#define git_commit_summary                 (ci_git()->git_commit_summary)
#define git_commit_time                    (ci_git()->git_commit_time)
#define git_commit_tree                    (ci_git()->git_commit_tree)
#define git_error_clear                    (ci_git()->git_error_clear)
#define git_error_last                     (ci_git()->git_error_last)
#define git_graph_descendant_of            (ci_git()->git_graph_descendant_of)
#define git_libgit2_init                   (ci_git()->git_libgit2_init)
#define git_libgit2_shutdown               (ci_git()->git_libgit2_shutdown)
#define git_merge_base                     (ci_git()->git_merge_base)
#define git_note_next                      (ci_git()->git_note_next)
#define git_object_free                    (ci_git()->git_object_free)
#define git_object_id                      (ci_git()->git_object_id)
#define git_object_peel                    (ci_git()->git_object_peel)
#define git_oid_cmp                        (ci_git()->git_oid_cmp)
#define git_oid_cpy                        (ci_git()->git_oid_cpy)
#define git_oid_equal                      (ci_git()->git_oid_equal)
#define git_oid_fromstr                    (ci_git()->git_oid_fromstr)
#define git_oid_tostr                      (ci_git()->git_oid_tostr)
#define git_reference_create               (ci_git()->git_reference_create)
#define git_reference_create_matching      (ci_git()->git_reference_create_matching)
#define git_reference_free                 (ci_git()->git_reference_free)
#define git_reference_is_branch            (ci_git()->git_reference_is_branch)
#define git_reference_is_valid_name        (ci_git()->git_reference_is_valid_name)
#define git_reference_lookup               (ci_git()->git_reference_lookup)
#define git_reference_name_to_id           (ci_git()->git_reference_name_to_id)
#define git_reference_peel                 (ci_git()->git_reference_peel)
#define git_reference_shorthand            (ci_git()->git_reference_shorthand)
#define git_repository_free                (ci_git()->git_repository_free)
#define git_repository_head                (ci_git()->git_repository_head)
#define git_repository_is_bare             (ci_git()->git_repository_is_bare)
#define git_repository_is_shallow          (ci_git()->git_repository_is_shallow)
#define git_repository_open_ext            (ci_git()->git_repository_open_ext)
#define git_repository_path                (ci_git()->git_repository_path)
#define git_revparse_single                (ci_git()->git_revparse_single)
#define git_revwalk_free                   (ci_git()->git_revwalk_free)
#define git_revwalk_new                    (ci_git()->git_revwalk_new)
#define git_revwalk_next                   (ci_git()->git_revwalk_next)
#define git_revwalk_push                   (ci_git()->git_revwalk_push)
#define git_revwalk_push_range             (ci_git()->git_revwalk_push_range)
#define git_revwalk_simplify_first_parent  (ci_git()->git_revwalk_simplify_first_parent)
#define git_signature_default              (ci_git()->git_signature_default)
#define git_signature_free                 (ci_git()->git_signature_free)
#define git_signature_now                  (ci_git()->git_signature_now)
#define git_status_byindex                 (ci_git()->git_status_byindex)
#define git_status_list_entrycount         (ci_git()->git_status_list_entrycount)
#define git_status_list_free               (ci_git()->git_status_list_free)
#define git_status_list_new                (ci_git()->git_status_list_new)
#define git_status_options_init            (ci_git()->git_status_options_init)
#define git_tree_create_updated            (ci_git()->git_tree_create_updated)
#define git_tree_entry_byindex             (ci_git()->git_tree_entry_byindex)
#define git_tree_entry_filemode            (ci_git()->git_tree_entry_filemode)
#define git_tree_entry_id                  (ci_git()->git_tree_entry_id)
#define git_tree_entry_name                (ci_git()->git_tree_entry_name)
#define git_tree_entry_type                (ci_git()->git_tree_entry_type)
#define git_tree_entrycount                (ci_git()->git_tree_entrycount)
#define git_tree_free                      (ci_git()->git_tree_free)
#define git_tree_lookup                    (ci_git()->git_tree_lookup)
#define git_treebuilder_free               (ci_git()->git_treebuilder_free)
#define git_treebuilder_insert             (ci_git()->git_treebuilder_insert)
#define git_treebuilder_new                (ci_git()->git_treebuilder_new)
#define git_treebuilder_write              (ci_git()->git_treebuilder_write)

#endif

#endif
