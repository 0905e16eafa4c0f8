extension AlertCatalog {
    /// The languages the String Catalog ships besides English, each key's format in it (same
    /// arguments as the English format; numbered ones may be reordered).
    ///
    /// Written as a sports broadcast would say it: Spanish from Spain's press ("penalti", "en
    /// propia puerta"), Japanese with the football terms fans use ("PK", "オウンゴール") and
    /// full-width brackets and colons. Team and player names arrive as the feed spells them.
    public static let translations: [String: [String: String]] = [
        "es": [
            "CANCELLED_TITLE": "Partido cancelado: %1$@ - %2$@",
            "CARD_PLAYER_TITLE": "Tarjeta para %1$@ (%2$@)",
            "CARD_RED_MINUTE_TITLE": "%1$@ Tarjeta roja: %2$@ (%3$@)",
            "CARD_RED_TEAM_TITLE": "Tarjeta roja para %@",
            "CARD_RED_TITLE": "Tarjeta roja: %1$@ (%2$@)",
            "CARD_SECOND_YELLOW_MINUTE_TITLE": "%1$@ Expulsión por doble amarilla: %2$@ (%3$@)",
            "CARD_SECOND_YELLOW_TEAM_TITLE": "Expulsión por doble amarilla: %@",
            "CARD_SECOND_YELLOW_TITLE": "Expulsión por doble amarilla: %1$@ (%2$@)",
            "CARD_TEAM_TITLE": "Tarjeta para %@",
            "CARD_TITLE": "Tarjeta",
            "CARD_YELLOW_MINUTE_TITLE": "%1$@ Tarjeta amarilla: %2$@ (%3$@)",
            "CARD_YELLOW_TEAM_TITLE": "Tarjeta amarilla para %@",
            "CARD_YELLOW_TITLE": "Tarjeta amarilla: %1$@ (%2$@)",
            "CLOCK_TITLE": "Reloj: %@",
            "CLOCK_UPDATE_TITLE": "Reloj actualizado",
            "FINAL_TITLE": "Final del partido: %1$@ - %2$@",
            "GOAL_DISALLOWED_PLAYER_TITLE": "Gol anulado: %1$@ (%2$@)",
            "GOAL_DISALLOWED_TEAM_TITLE": "Gol anulado a %@",
            "GOAL_DISALLOWED_TITLE": "Gol anulado",
            "PENALTY_TEAM_TITLE": "Penalti para %@",
            "PENALTY_TITLE": "Penalti",
            "PERIOD_CHANGE_TITLE": "Nuevo periodo",
            "PERIOD_TITLE": "Periodo: %@",
            "RESUMED_TITLE": "Se reanuda el %1$@ - %2$@",
            "SCHEDULED_TITLE": "Partido programado: %1$@ - %2$@",
            "SCORELINE_BODY": "%1$@ %2$@–%3$@ %4$@",
            "SCORE_OWN_GOAL_MINUTE_TITLE": "%1$@ Gol en propia puerta de %2$@; gol para %3$@",
            "SCORE_OWN_GOAL_TEAM_TITLE": "Gol en propia puerta: gol para %@",
            "SCORE_OWN_GOAL_TITLE": "Gol en propia puerta de %1$@; gol para %2$@",
            "SCORE_PENALTY_MINUTE_TITLE": "%1$@ ¡Gol de penalti! %2$@ (%3$@)",
            "SCORE_PENALTY_TITLE": "¡Gol de penalti! %1$@ (%2$@)",
            "SCORE_PLAYER_MINUTE_TITLE": "%1$@ ¡Gol! %2$@ (%3$@)",
            "SCORE_PLAYER_TITLE": "Anota %1$@ para %2$@",
            "SCORE_TEAM_TITLE": "Anota %@",
            "SCORE_TITLE": "Cambio en el marcador",
            "START_TITLE": "Comienza el %1$@ - %2$@",
            "STATS_TITLE": "Estadísticas actualizadas",
            "SUBSTITUTION_PLAYER_TITLE": "Cambio en %1$@: %2$@",
            "SUBSTITUTION_TEAM_TITLE": "Cambio en %@",
            "SUBSTITUTION_TITLE": "Cambio",
            "SUSPENDED_TITLE": "Partido suspendido: %1$@ - %2$@",
            "TIMEOUT_TEAM_TITLE": "Tiempo muerto: %@",
            "TIMEOUT_TITLE": "Tiempo muerto",
            "VAR_TITLE": "Revisión en vídeo",
        ],
        "ja": [
            "CANCELLED_TITLE": "%1$@ 対 %2$@ 試合中止",
            "CARD_PLAYER_TITLE": "カード：%1$@（%2$@）",
            "CARD_RED_MINUTE_TITLE": "%1$@ レッドカード：%2$@（%3$@）",
            "CARD_RED_TEAM_TITLE": "%@にレッドカード",
            "CARD_RED_TITLE": "レッドカード：%1$@（%2$@）",
            "CARD_SECOND_YELLOW_MINUTE_TITLE": "%1$@ 警告2枚で退場：%2$@（%3$@）",
            "CARD_SECOND_YELLOW_TEAM_TITLE": "%@に退場者（警告2枚）",
            "CARD_SECOND_YELLOW_TITLE": "警告2枚で退場：%1$@（%2$@）",
            "CARD_TEAM_TITLE": "%@にカード",
            "CARD_TITLE": "カード提示",
            "CARD_YELLOW_MINUTE_TITLE": "%1$@ イエローカード：%2$@（%3$@）",
            "CARD_YELLOW_TEAM_TITLE": "%@にイエローカード",
            "CARD_YELLOW_TITLE": "イエローカード：%1$@（%2$@）",
            "CLOCK_TITLE": "試合時間：%@",
            "CLOCK_UPDATE_TITLE": "試合時間を修正",
            "FINAL_TITLE": "試合終了：%1$@ 対 %2$@",
            "GOAL_DISALLOWED_PLAYER_TITLE": "ゴール取り消し：%1$@（%2$@）",
            "GOAL_DISALLOWED_TEAM_TITLE": "%@のゴールは取り消し",
            "GOAL_DISALLOWED_TITLE": "ゴール取り消し",
            "PENALTY_TEAM_TITLE": "%@にペナルティ",
            "PENALTY_TITLE": "ペナルティ",
            "PERIOD_CHANGE_TITLE": "次のピリオドへ",
            "PERIOD_TITLE": "ピリオド：%@",
            "RESUMED_TITLE": "%1$@ 対 %2$@ 試合再開",
            "SCHEDULED_TITLE": "%1$@ 対 %2$@ 開催予定",
            "SCORELINE_BODY": "%1$@ %2$@–%3$@ %4$@",
            "SCORE_OWN_GOAL_MINUTE_TITLE": "%1$@ %2$@のオウンゴール、%3$@に得点",
            "SCORE_OWN_GOAL_TEAM_TITLE": "オウンゴール：%@に得点",
            "SCORE_OWN_GOAL_TITLE": "%1$@のオウンゴール、%2$@に得点",
            "SCORE_PENALTY_MINUTE_TITLE": "%1$@ PKでゴール：%2$@（%3$@）",
            "SCORE_PENALTY_TITLE": "PKでゴール：%1$@（%2$@）",
            "SCORE_PLAYER_MINUTE_TITLE": "%1$@ ゴール：%2$@（%3$@）",
            "SCORE_PLAYER_TITLE": "%2$@の%1$@が得点",
            "SCORE_TEAM_TITLE": "%@が得点",
            "SCORE_TITLE": "スコア更新",
            "START_TITLE": "%1$@ 対 %2$@ 試合開始",
            "STATS_TITLE": "スタッツ更新",
            "SUBSTITUTION_PLAYER_TITLE": "%1$@ 選手交代：%2$@",
            "SUBSTITUTION_TEAM_TITLE": "%@ 選手交代",
            "SUBSTITUTION_TITLE": "選手交代",
            "SUSPENDED_TITLE": "%1$@ 対 %2$@ 試合中断",
            "TIMEOUT_TEAM_TITLE": "%@がタイムアウト",
            "TIMEOUT_TITLE": "タイムアウト",
            "VAR_TITLE": "ビデオ判定",
        ],
    ]

    /// Every language of the String Catalog, English first.
    public static var languages: [String] {
        ["en"] + translations.keys.sorted()
    }

    /// `template`'s format in `language`; `nil` when the catalog lacks it.
    public static func format(of template: Template, in language: String) -> String? {
        language == "en" ? template.format : translations[language]?[template.key]
    }
}
