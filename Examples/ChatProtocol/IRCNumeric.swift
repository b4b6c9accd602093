//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A numeric reply of the chat protocol: its three-digit code, its name, and the fixed text of
/// its last parameter where it has one.
///
/// ``all`` lists every numeric the server sends, as Protocol.md's table does (a test checks
/// that the two agree). Build replies with ``IRCReplyBuilder``.
public struct IRCNumeric: Sendable, Hashable, CustomStringConvertible {
    /// The three digits, for example `"433"`.
    public let code: String
    /// The conventional name, for example `"ERR_NICKNAMEINUSE"`.
    public let name: String
    /// The human-readable last parameter, when it does not vary; `nil` when the reply's last
    /// parameter carries data or varying text.
    public let text: String?

    init(_ code: String, _ name: String, _ text: String? = nil) {
        self.code = code
        self.name = name
        self.text = text
    }

    /// Whether this is an error reply (codes 400 to 599, and 691).
    public var isError: Bool { code.hasPrefix("4") || code.hasPrefix("5") || code == "691" }

    public var description: String { "\(code) \(name)" }

    /// `001` `RPL_WELCOME`.
    public static let welcome = IRCNumeric("001", "RPL_WELCOME")
    /// `002` `RPL_YOURHOST`.
    public static let yourHost = IRCNumeric("002", "RPL_YOURHOST")
    /// `003` `RPL_CREATED`.
    public static let created = IRCNumeric("003", "RPL_CREATED")
    /// `004` `RPL_MYINFO`.
    public static let myInfo = IRCNumeric("004", "RPL_MYINFO")
    /// `005` `RPL_ISUPPORT`.
    public static let isupport = IRCNumeric("005", "RPL_ISUPPORT", "are supported by this server")
    /// `006` `RPL_MAP`: one server of the network, indented under the one it links through.
    public static let map = IRCNumeric("006", "RPL_MAP")
    /// `007` `RPL_MAPEND`.
    public static let mapEnd = IRCNumeric("007", "RPL_MAPEND", "End of /MAP")
    /// `211` `RPL_STATSLINKINFO`: one link's traffic.
    public static let statsLinkInfo = IRCNumeric("211", "RPL_STATSLINKINFO")
    /// `219` `RPL_ENDOFSTATS`.
    public static let endOfStats = IRCNumeric("219", "RPL_ENDOFSTATS", "End of STATS report")
    /// `221` `RPL_UMODEIS`.
    public static let userModeIs = IRCNumeric("221", "RPL_UMODEIS")
    /// `251` `RPL_LUSERCLIENT`.
    public static let luserClient = IRCNumeric("251", "RPL_LUSERCLIENT")
    /// `254` `RPL_LUSERCHANNELS`.
    public static let luserChannels = IRCNumeric("254", "RPL_LUSERCHANNELS", "channels formed")
    /// `255` `RPL_LUSERME`.
    public static let luserMe = IRCNumeric("255", "RPL_LUSERME")
    /// `265` `RPL_LOCALUSERS`.
    public static let localUsers = IRCNumeric("265", "RPL_LOCALUSERS")
    /// `266` `RPL_GLOBALUSERS`.
    public static let globalUsers = IRCNumeric("266", "RPL_GLOBALUSERS")
    /// `301` `RPL_AWAY`.
    public static let away = IRCNumeric("301", "RPL_AWAY")
    /// `302` `RPL_USERHOST`.
    public static let userHost = IRCNumeric("302", "RPL_USERHOST")
    /// `303` `RPL_ISON`.
    public static let isOn = IRCNumeric("303", "RPL_ISON")
    /// `305` `RPL_UNAWAY`.
    public static let unaway = IRCNumeric("305", "RPL_UNAWAY", "You are no longer marked as being away")
    /// `306` `RPL_NOWAWAY`.
    public static let nowAway = IRCNumeric("306", "RPL_NOWAWAY", "You have been marked as being away")
    /// `311` `RPL_WHOISUSER`.
    public static let whoisUser = IRCNumeric("311", "RPL_WHOISUSER")
    /// `312` `RPL_WHOISSERVER`.
    public static let whoisServer = IRCNumeric("312", "RPL_WHOISSERVER")
    /// `315` `RPL_ENDOFWHO`.
    public static let endOfWho = IRCNumeric("315", "RPL_ENDOFWHO", "End of WHO list")
    /// `317` `RPL_WHOISIDLE`.
    public static let whoisIdle = IRCNumeric("317", "RPL_WHOISIDLE", "seconds idle, signon time")
    /// `318` `RPL_ENDOFWHOIS`.
    public static let endOfWhois = IRCNumeric("318", "RPL_ENDOFWHOIS", "End of /WHOIS list")
    /// `319` `RPL_WHOISCHANNELS`.
    public static let whoisChannels = IRCNumeric("319", "RPL_WHOISCHANNELS")
    /// `321` `RPL_LISTSTART`.
    public static let listStart = IRCNumeric("321", "RPL_LISTSTART", "Users  Name")
    /// `322` `RPL_LIST`.
    public static let list = IRCNumeric("322", "RPL_LIST")
    /// `323` `RPL_LISTEND`.
    public static let listEnd = IRCNumeric("323", "RPL_LISTEND", "End of /LIST")
    /// `324` `RPL_CHANNELMODEIS`.
    public static let channelModeIs = IRCNumeric("324", "RPL_CHANNELMODEIS")
    /// `329` `RPL_CREATIONTIME`.
    public static let creationTime = IRCNumeric("329", "RPL_CREATIONTIME")
    /// `331` `RPL_NOTOPIC`.
    public static let noTopic = IRCNumeric("331", "RPL_NOTOPIC", "No topic is set")
    /// `332` `RPL_TOPIC`.
    public static let topic = IRCNumeric("332", "RPL_TOPIC")
    /// `333` `RPL_TOPICWHOTIME`.
    public static let topicWhoTime = IRCNumeric("333", "RPL_TOPICWHOTIME")
    /// `351` `RPL_VERSION`.
    public static let version = IRCNumeric("351", "RPL_VERSION", "StreamTaskKit chat example")
    /// `352` `RPL_WHOREPLY`.
    public static let whoReply = IRCNumeric("352", "RPL_WHOREPLY")
    /// `353` `RPL_NAMREPLY`.
    public static let namReply = IRCNumeric("353", "RPL_NAMREPLY")
    /// `364` `RPL_LINKS`.
    public static let links = IRCNumeric("364", "RPL_LINKS")
    /// `365` `RPL_ENDOFLINKS`.
    public static let endOfLinks = IRCNumeric("365", "RPL_ENDOFLINKS", "End of /LINKS list")
    /// `366` `RPL_ENDOFNAMES`.
    public static let endOfNames = IRCNumeric("366", "RPL_ENDOFNAMES", "End of /NAMES list")
    /// `368` `RPL_ENDOFBANLIST`.
    public static let endOfBanList = IRCNumeric("368", "RPL_ENDOFBANLIST", "End of channel ban list")
    /// `372` `RPL_MOTD`.
    public static let motd = IRCNumeric("372", "RPL_MOTD")
    /// `375` `RPL_MOTDSTART`.
    public static let motdStart = IRCNumeric("375", "RPL_MOTDSTART")
    /// `376` `RPL_ENDOFMOTD`.
    public static let endOfMotd = IRCNumeric("376", "RPL_ENDOFMOTD", "End of /MOTD command.")
    /// `401` `ERR_NOSUCHNICK`.
    public static let noSuchNick = IRCNumeric("401", "ERR_NOSUCHNICK", "No such nick/channel")
    /// `403` `ERR_NOSUCHCHANNEL`.
    public static let noSuchChannel = IRCNumeric("403", "ERR_NOSUCHCHANNEL", "No such channel")
    /// `404` `ERR_CANNOTSENDTOCHAN`.
    public static let cannotSendToChannel = IRCNumeric("404", "ERR_CANNOTSENDTOCHAN", "Cannot send to channel")
    /// `405` `ERR_TOOMANYCHANNELS`.
    public static let tooManyChannels = IRCNumeric("405", "ERR_TOOMANYCHANNELS", "You have joined too many channels")
    /// `407` `ERR_TOOMANYTARGETS`.
    public static let tooManyTargets = IRCNumeric("407", "ERR_TOOMANYTARGETS", "Too many targets")
    /// `409` `ERR_NOORIGIN`.
    public static let noOrigin = IRCNumeric("409", "ERR_NOORIGIN", "No origin specified")
    /// `410` `ERR_INVALIDCAPCMD`.
    public static let invalidCapCommand = IRCNumeric("410", "ERR_INVALIDCAPCMD", "Invalid CAP command")
    /// `411` `ERR_NORECIPIENT`.
    public static let noRecipient = IRCNumeric("411", "ERR_NORECIPIENT")
    /// `412` `ERR_NOTEXTTOSEND`.
    public static let noTextToSend = IRCNumeric("412", "ERR_NOTEXTTOSEND", "No text to send")
    /// `417` `ERR_INPUTTOOLONG`.
    public static let inputTooLong = IRCNumeric("417", "ERR_INPUTTOOLONG", "Input line was too long")
    /// `421` `ERR_UNKNOWNCOMMAND`.
    public static let unknownCommand = IRCNumeric("421", "ERR_UNKNOWNCOMMAND", "Unknown command")
    /// `422` `ERR_NOMOTD`.
    public static let noMotd = IRCNumeric("422", "ERR_NOMOTD", "MOTD File is missing")
    /// `431` `ERR_NONICKNAMEGIVEN`.
    public static let noNicknameGiven = IRCNumeric("431", "ERR_NONICKNAMEGIVEN", "No nickname given")
    /// `432` `ERR_ERRONEUSNICKNAME`.
    public static let erroneousNickname = IRCNumeric("432", "ERR_ERRONEUSNICKNAME", "Erroneous nickname")
    /// `433` `ERR_NICKNAMEINUSE`.
    public static let nicknameInUse = IRCNumeric("433", "ERR_NICKNAMEINUSE", "Nickname is already in use")
    /// `442` `ERR_NOTONCHANNEL`.
    public static let notOnChannel = IRCNumeric("442", "ERR_NOTONCHANNEL", "You're not on that channel")
    /// `451` `ERR_NOTREGISTERED`.
    public static let notRegistered = IRCNumeric("451", "ERR_NOTREGISTERED", "You have not registered")
    /// `461` `ERR_NEEDMOREPARAMS`.
    public static let needMoreParameters = IRCNumeric("461", "ERR_NEEDMOREPARAMS", "Not enough parameters")
    /// `462` `ERR_ALREADYREGISTERED`.
    public static let alreadyRegistered = IRCNumeric("462", "ERR_ALREADYREGISTERED", "You may not reregister")
    /// `482` `ERR_CHANOPRIVSNEEDED`.
    public static let channelOperatorPrivilegesNeeded = IRCNumeric(
        "482", "ERR_CHANOPRIVSNEEDED", "You're not channel operator")
    /// `501` `ERR_UMODEUNKNOWNFLAG`.
    public static let userModeUnknownFlag = IRCNumeric("501", "ERR_UMODEUNKNOWNFLAG", "Unknown MODE flag")
    /// `502` `ERR_USERSDONTMATCH`.
    public static let usersDontMatch = IRCNumeric("502", "ERR_USERSDONTMATCH", "Cant change mode for other users")
    /// `670` `RPL_STARTTLS`.
    public static let startTLS = IRCNumeric("670", "RPL_STARTTLS", "STARTTLS successful, proceed with TLS handshake")
    /// `671` `RPL_WHOISSECURE`.
    public static let whoisSecure = IRCNumeric("671", "RPL_WHOISSECURE", "is using a secure connection")
    /// `691` `ERR_STARTTLS`.
    public static let startTLSFailed = IRCNumeric("691", "ERR_STARTTLS")

    /// Every numeric the server sends, in ascending order.
    public static let all: [IRCNumeric] = [
        welcome,
        yourHost,
        created,
        myInfo,
        isupport,
        map,
        mapEnd,
        statsLinkInfo,
        endOfStats,
        userModeIs,
        luserClient,
        luserChannels,
        luserMe,
        localUsers,
        globalUsers,
        away,
        userHost,
        isOn,
        unaway,
        nowAway,
        whoisUser,
        whoisServer,
        endOfWho,
        whoisIdle,
        endOfWhois,
        whoisChannels,
        listStart,
        list,
        listEnd,
        channelModeIs,
        creationTime,
        noTopic,
        topic,
        topicWhoTime,
        version,
        whoReply,
        namReply,
        links,
        endOfLinks,
        endOfNames,
        endOfBanList,
        motd,
        motdStart,
        endOfMotd,
        noSuchNick,
        noSuchChannel,
        cannotSendToChannel,
        tooManyChannels,
        tooManyTargets,
        noOrigin,
        invalidCapCommand,
        noRecipient,
        noTextToSend,
        inputTooLong,
        unknownCommand,
        noMotd,
        noNicknameGiven,
        erroneousNickname,
        nicknameInUse,
        notOnChannel,
        notRegistered,
        needMoreParameters,
        alreadyRegistered,
        channelOperatorPrivilegesNeeded,
        userModeUnknownFlag,
        usersDontMatch,
        startTLS,
        whoisSecure,
        startTLSFailed,
    ]
}
