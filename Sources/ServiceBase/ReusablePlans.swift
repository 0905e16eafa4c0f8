/// Transaction-local settings under which a statement is planned once per connection and its
/// plan kept, for the hot statements whose parameters (arrays of games, limits, exclusions)
/// made Postgres judge a fresh custom plan cheaper at almost every execution: ingest's
/// statements (about 1 ms of planning per transaction on the Saturday, a fifth of Postgres'
/// statement time there) and the workers' claim (0.9 ms per claim, 358 plans for 358 claims in
/// a profiled 10 s of part 3). `random_page_cost = 1.1` (the tables they read stay in memory)
/// makes the kept plans index lookups for any array length or limit, where the default cost
/// picks sequential scans of whole tables for them.
package enum ReusablePlans {
    package static let settings: KeyValuePairs<String, String> = [
        "plan_cache_mode": "force_generic_plan", "random_page_cost": "1.1",
    ]
}
