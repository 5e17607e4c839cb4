/*
 * lane.h - the host lifecycle as an explicit state machine: one table of
 * {next state, action} per state and event (lane_next, lane_action); the
 * run changes a host's state only through it (lane_fire), so an impossible
 * transition is caught, not acted on.
 */
#ifndef MG_LANE_H
#define MG_LANE_H

#include "report.h"

typedef enum host_state {
	HOST_NONE,     /* no host: the lane may start one */
	HOST_STARTING, /* forked, waiting for hello */
	HOST_READY,    /* hello seen, nothing in flight */
	HOST_RUNNING,  /* run lines in flight */
	HOST_QUITTING, /* quit sent or recycle announced: waiting for bye */
	HOST_DYING,    /* reply pipe closed without bye: waiting for the exit status */
	HOST_STATE_COUNT
} host_state;

typedef enum host_event {
	EV_SPAWNED, /* a host was forked for the lane */
	EV_HELLO,   /* its greeting arrived */
	EV_FED,     /* run lines were written */
	EV_DRAINED, /* the last result in flight arrived */
	EV_QUIT,    /* the runner ends it at a boundary: soft limit, no work left */
	EV_RECYCLE, /* the host said it crossed the soft limit */
	EV_BYE,     /* clean goodbye: detached, reaped in the background */
	EV_KILL,    /* hard limit, timeout, protocol error, deadline: group killed */
	EV_EOF,     /* reply pipe closed without bye */
	EV_EXITED,  /* exit status known while dying */
	EV_COUNT
} host_event;

/* How a host ended: the report's vocabulary (report_end, with its names:
 * report_end_name), under the lane's short names. */
typedef report_end host_end;
#define END_NONE        REPORT_END_RUNNING /* not ended (or not decided yet) */
#define END_QUIT        REPORT_END_QUIT
#define END_RECYCLE     REPORT_END_RECYCLE
#define END_KILL        REPORT_END_KILL
#define END_TIMEOUT     REPORT_END_TIMEOUT
#define END_ERROR       REPORT_END_ERROR
#define END_CRASH       REPORT_END_CRASH
#define END_EXIT        REPORT_END_EXIT
#define END_INTERRUPTED REPORT_END_INTERRUPTED

/* What lane_fire does after an edge, besides changing the state. */
typedef enum host_action {
	ACT_NONE,
	ACT_DETACH, /* the host is done with: its fds close now, it is reaped in the background */
} host_action;

/* The state after e in s, or HOST_STATE_COUNT if e cannot happen in s. */
host_state lane_next(host_state s, host_event e);

/* The action of the edge (s, e); ACT_NONE for an edge that cannot happen. */
host_action lane_action(host_state s, host_event e);

const char *lane_state_name(host_state s);
const char *lane_event_name(host_event e);

#endif
