/*
 * lane.c - the transition table of a host's lifecycle (see lane.h).
 * Pure: no I/O, no allocation; unit-tested edge by edge.
 */
#include "lane.h"

#define X HOST_STATE_COUNT

/* next[state][event] */
static const host_state next[HOST_STATE_COUNT][EV_COUNT] = {
    /*                SPAWNED        HELLO       FED           DRAINED     QUIT           RECYCLE
       BYE        KILL       EOF         EXITED */
    [HOST_NONE] = {HOST_STARTING, X, X, X, X, X, X, X, X, X},
    [HOST_STARTING] = {X, HOST_READY, X, X, X, X, X, HOST_NONE, HOST_DYING, X},
    [HOST_READY] = {X, X, HOST_RUNNING, X, HOST_QUITTING, HOST_QUITTING, X, HOST_NONE, HOST_DYING,
                    X},
    [HOST_RUNNING] = {X, X, HOST_RUNNING, HOST_READY, HOST_QUITTING, HOST_QUITTING, X, HOST_NONE,
                      HOST_DYING, X},
    [HOST_QUITTING] = {X, X, X, HOST_QUITTING, X, HOST_QUITTING, HOST_NONE, HOST_NONE, HOST_DYING,
                       X},
    [HOST_DYING] = {X, X, X, X, X, X, X, HOST_NONE, X, HOST_NONE},
};

host_state lane_next(host_state s, host_event e)
{
	if ((unsigned)s >= HOST_STATE_COUNT || (unsigned)e >= EV_COUNT)
		return X;
	return next[s][e];
}

const char *lane_state_name(host_state s)
{
	static const char *names[] = {"none", "starting", "ready", "running", "quitting", "dying"};
	return (unsigned)s < HOST_STATE_COUNT ? names[s] : "invalid";
}

const char *lane_event_name(host_event e)
{
	static const char *names[] = {"spawned", "hello", "fed",  "drained", "quit",
	                              "recycle", "bye",   "kill", "eof",     "exited"};
	return (unsigned)e < EV_COUNT ? names[e] : "invalid";
}
