use elicit_rmcp::Elicit;

#[derive(serde::Deserialize, Elicit)]
struct Trip {
    #[elicit(message = "Where to?")]
    destination: String,
    #[serde(rename = "destination")]
    #[elicit(message = "Where else?")]
    other: String,
}

fn main() {}
