use elicit_rmcp::{Elicit, ErrorData, Resolution, Resolve};

async fn airport(_r: Resolve) -> Result<Resolution, ErrorData> {
    Ok(Resolution::value("LHR"))
}

#[derive(serde::Deserialize, Elicit)]
struct Trip {
    #[elicit(message = "Which airport?", resolver = airport)]
    airport: String,
}

fn main() {}
