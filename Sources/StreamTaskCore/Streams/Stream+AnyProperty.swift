//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if !canImport(Darwin)
import Foundation

extension Stream {
    /// Darwin Foundation's form of `setProperty(_:forKey:)`, which takes any value and whose
    /// result may be ignored; Foundation on Linux takes only objects, so Darwin code that passes
    /// a `StreamSocketSecurityLevel`, a `StreamNetworkServiceTypeValue` or a raw-value string
    /// would not compile. The value is handed to the stream's own `setProperty(_:forKey:)` as an
    /// object (a value that is not one is boxed; the stream's `as?` casts see the value again).
    ///
    /// - Returns: Whether the stream took the value: captured streams take
    ///   `socketSecurityLevelKey` (see <doc:StreamHandover>).
    @discardableResult
    public func setProperty(_ property: Any?, forKey key: Stream.PropertyKey) -> Bool {
        let object: AnyObject? = property.map { $0 as AnyObject }
        return setProperty(object, forKey: key)
    }
}
#endif
