//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "route_watch_loader.h"

// Swift has no code that runs when a module is loaded, so this constructor, in the same link
// as StreamTaskRouteWatch, registers route watching with the core as the program (or the
// library that carries it) loads: before any task can exist. The core itself does not depend
// on route watching; linking StreamTaskKit brings it in.

// Defined in Swift (RouteWatchRegistration.swift).
extern void stk_route_watch_register(void);

static int registered = 0;

__attribute__((constructor)) static void stk_route_watch_load(void) {
    stk_route_watch_register();
    registered = 1;
}

int stk_route_watch_registered(void) { return registered; }
