use elicit_rmcp::Elicit;

#[derive(serde::Deserialize, Elicit)]
struct Trip {
    #[elicit(message = "Which cities?")]
    cities: Vec<String>,
}

fn main() {}
