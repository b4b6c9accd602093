//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef STK_ROUTE_WATCH_LOADER_H
#define STK_ROUTE_WATCH_LOADER_H

/// 1 once the constructor that registers route watching with the core has run, else 0.
int stk_route_watch_registered(void);

#endif
