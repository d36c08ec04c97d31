use elicit_rmcp::Elicit;

#[derive(serde::Deserialize)]
struct Seat {
    row: u8,
}

#[derive(serde::Deserialize, Elicit)]
struct Trip {
    #[elicit(message = "Which seat?")]
    seat: Seat,
}

fn main() {}
