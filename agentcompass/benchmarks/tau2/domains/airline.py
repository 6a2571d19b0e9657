"""τ²-bench airline domain: the tools of ``tau2/domains/airline/tools.py`` over the flight DB, reimplemented with
the same results, error messages and DB mutations (the fixed reservation ids, certificate ids and booking time of
the reference included). Tool names, types and descriptions are read from the reference's source; the policy from
``data/tau2/domains/airline/policy.md``."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from agentcompass.benchmarks.tau2.domains import DomainSpec, KitSource
from agentcompass.benchmarks.tau2.domains._base import ToolKit

NEW_RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")  # the reference assumes at most 3 bookings per task
NEW_PAYMENT_IDS = (3221322, 3221323, 3221324)
NOW = "2024-05-15T15:00:00"
DIRECT_FLIGHT_FIELDS = (
    "flight_number", "origin", "destination", "scheduled_departure_time_est", "scheduled_arrival_time_est"
)  # fmt: skip
AIRPORTS = (
    ("SFO", "San Francisco"), ("JFK", "New York"), ("LAX", "Los Angeles"), ("ORD", "Chicago"), ("DFW", "Dallas"),
    ("DEN", "Denver"), ("SEA", "Seattle"), ("ATL", "Atlanta"), ("MIA", "Miami"), ("BOS", "Boston"),
    ("PHX", "Phoenix"), ("IAH", "Houston"), ("LAS", "Las Vegas"), ("MCO", "Orlando"), ("EWR", "Newark"),
    ("CLT", "Charlotte"), ("MSP", "Minneapolis"), ("DTW", "Detroit"), ("PHL", "Philadelphia"), ("LGA", "LaGuardia"),
)  # fmt: skip


def _as_models(cls: Any, values: Any) -> Any:
    """The reference's ``[Cls(**v) for v in values]`` when every value is a dict; ``values`` unchanged otherwise."""
    if all(isinstance(value, dict) for value in values):
        return [cls(**value) for value in values]
    return values


class AirlineTools(ToolKit):
    """The airline toolkit (``AirlineTools`` of the reference)."""

    def _get_user(self, user_id: str) -> Any:
        if user_id not in self.db.users:
            raise ValueError(f"User {user_id} not found")
        return self.db.users[user_id]

    def _get_reservation(self, reservation_id: str) -> Any:
        if reservation_id not in self.db.reservations:
            raise ValueError(f"Reservation {reservation_id} not found")
        return self.db.reservations[reservation_id]

    def _get_flight(self, flight_number: str) -> Any:
        if flight_number not in self.db.flights:
            raise ValueError(f"Flight {flight_number} not found")
        return self.db.flights[flight_number]

    def _get_flight_instance(self, flight_number: str, date: str) -> Any:
        flight = self._get_flight(flight_number)
        if date not in flight.dates:
            raise ValueError(f"Flight {flight_number} not found on date {date}")
        return flight.dates[date]

    def _get_new_reservation_id(self) -> str:
        for reservation_id in NEW_RESERVATION_IDS:
            if reservation_id not in self.db.reservations:
                return reservation_id
        raise ValueError("Too many reservations")

    def _search_direct_flight(
        self, date: str, origin: str | None = None, destination: str | None = None, leave_after: str | None = None
    ) -> list[Any]:
        results = []
        for flight in self.db.flights.values():
            check = (
                (origin is None or flight.origin == origin)
                and (destination is None or flight.destination == destination)
                and (date in flight.dates)
                and (flight.dates[date].status == "available")
                and (leave_after is None or flight.scheduled_departure_time_est >= leave_after)
            )
            if check:
                same = {name: getattr(flight, name) for name in DIRECT_FLIGHT_FIELDS}
                dated = {"available_seats": flight.dates[date].available_seats, "prices": flight.dates[date].prices}
                results.append(self.models["DirectFlight"](**same, status="available", **dated))
        return results

    def _payment_for_update(self, user: Any, payment_id: str, total_price: int) -> Any:
        if payment_id not in user.payment_methods:
            raise ValueError("Payment method not found")
        payment_method = user.payment_methods[payment_id]
        if payment_method.source == "certificate":
            raise ValueError("Certificate cannot be used to update reservation")
        elif payment_method.source == "gift_card" and payment_method.amount < total_price:
            raise ValueError("Gift card balance is not enough")
        if payment_method.source == "gift_card":
            payment_method.amount -= total_price
        if total_price != 0:
            return self.models["Payment"](payment_id=payment_id, amount=total_price)
        return None

    def book_reservation(
        self,
        user_id: str,
        origin: str,
        destination: str,
        flight_type: str,
        cabin: str,
        flights: list[Any],
        passengers: list[Any],
        payment_methods: list[Any],
        total_baggages: int,
        nonfree_baggages: int,
        insurance: str,
    ) -> Any:
        flights = _as_models(self.models["FlightInfo"], flights)
        passengers = _as_models(self.models["Passenger"], passengers)
        payment_methods = _as_models(self.models["Payment"], payment_methods)
        user = self._get_user(user_id)
        reservation = self.models["Reservation"](
            reservation_id=self._get_new_reservation_id(),
            user_id=user_id,
            origin=origin,
            destination=destination,
            flight_type=flight_type,
            cabin=cabin,
            flights=[],
            passengers=deepcopy(passengers),
            payment_history=deepcopy(payment_methods),
            created_at=NOW,
            total_baggages=total_baggages,
            nonfree_baggages=nonfree_baggages,
            insurance=insurance,
        )
        total_price, dates_data = self._book_flights(reservation, flights, cabin, len(passengers))
        if insurance == "yes":
            total_price += 30 * len(passengers)
        total_price += 50 * nonfree_baggages
        self._check_payments(user, payment_methods, total_price)
        for payment_method in payment_methods:
            user_payment_method = user.payment_methods[payment_method.payment_id]
            if user_payment_method.source == "gift_card":
                user_payment_method.amount -= payment_method.amount
            elif user_payment_method.source == "certificate":
                user.payment_methods.pop(payment_method.payment_id)
        for flight_date_data in dates_data:
            flight_date_data.available_seats[cabin] -= len(passengers)
        self.db.reservations[reservation.reservation_id] = reservation
        self.db.users[user_id].reservations.append(reservation.reservation_id)
        return reservation

    def _book_flights(self, reservation: Any, flights: Any, cabin: str, seats: int) -> tuple[int, list[Any]]:
        total_price, dates_data = 0, []
        for flight_info in flights:
            reservation_flight, flight_date_data = self._priced_flight(flight_info, cabin, seats)
            reservation.flights.append(reservation_flight)
            dates_data.append(flight_date_data)
            total_price += reservation_flight.price * seats
        return total_price, dates_data

    def _priced_flight(self, flight_info: Any, cabin: str, seats: int) -> tuple[Any, Any]:
        """A new flight of a reservation at today's price, checked for availability, and its date's data."""
        flight_number = flight_info.flight_number
        flight = self._get_flight(flight_number)
        flight_date_data = self._get_flight_instance(flight_number=flight_number, date=flight_info.date)
        if not isinstance(flight_date_data, self.models["FlightDateStatusAvailable"]):
            raise ValueError(f"Flight {flight_number} not available on date {flight_info.date}")
        if flight_date_data.available_seats[cabin] < seats:
            raise ValueError(f"Not enough seats on flight {flight_number}")
        reservation_flight = self.models["ReservationFlight"](
            origin=flight.origin,
            destination=flight.destination,
            flight_number=flight_number,
            date=flight_info.date,
            price=flight_date_data.prices[cabin],
        )
        return reservation_flight, flight_date_data

    def _check_payments(self, user: Any, payment_methods: Any, total_price: int) -> None:
        for payment_method in payment_methods:
            payment_id, amount = payment_method.payment_id, payment_method.amount
            if payment_id not in user.payment_methods:
                raise ValueError(f"Payment method {payment_id} not found")
            user_payment_method = user.payment_methods[payment_id]
            if user_payment_method.source in {"gift_card", "certificate"} and user_payment_method.amount < amount:
                raise ValueError(f"Not enough balance in payment method {payment_id}")
        total_payment = sum(payment.amount for payment in payment_methods)
        if total_payment != total_price:
            raise ValueError(f"Payment amount does not add up, total price is {total_price}, but paid {total_payment}")

    def calculate(self, expression: str) -> str:
        if not all(char in "0123456789+-*/(). " for char in expression):
            raise ValueError("Invalid characters in expression")
        return str(round(float(eval(expression, {"__builtins__": None}, {})), 2))

    def cancel_reservation(self, reservation_id: str) -> Any:
        reservation = self._get_reservation(reservation_id)
        refunds = [
            self.models["Payment"](payment_id=payment.payment_id, amount=-payment.amount)
            for payment in reservation.payment_history
        ]
        reservation.payment_history.extend(refunds)
        reservation.status = "cancelled"
        return reservation  # the reference does not release the seats either

    def get_reservation_details(self, reservation_id: str) -> Any:
        return self._get_reservation(reservation_id)

    def get_user_details(self, user_id: str) -> Any:
        return self._get_user(user_id)

    def list_all_airports(self) -> Any:
        return [self.models["AirportCode"](iata=iata, city=city) for iata, city in AIRPORTS]

    def search_direct_flight(self, origin: str, destination: str, date: str) -> Any:
        return self._search_direct_flight(date=date, origin=origin, destination=destination)

    def search_onestop_flight(self, origin: str, destination: str, date: str) -> Any:
        results = []
        for result1 in self._search_direct_flight(date=date, origin=origin, destination=None):
            result1.date = date
            date2 = f"2024-05-{int(date[-2:]) + 1}" if "+1" in result1.scheduled_arrival_time_est else date
            for result2 in self._search_direct_flight(
                date=date2,
                origin=result1.destination,
                destination=destination,
                leave_after=result1.scheduled_arrival_time_est,
            ):
                result2.date = date2
                results.append([result1, result2])
        return results

    def send_certificate(self, user_id: str, amount: int) -> str:
        user = self._get_user(user_id)
        for payment_id in [f"certificate_{id}" for id in NEW_PAYMENT_IDS]:
            if payment_id not in user.payment_methods:
                certificate = self.models["Certificate"](id=payment_id, amount=amount, source="certificate")
                user.payment_methods[payment_id] = certificate
                return f"Certificate {payment_id} added to user {user_id} with amount {amount}."
        raise ValueError("Too many certificates")

    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"

    def update_reservation_baggages(
        self, reservation_id: str, total_baggages: int, nonfree_baggages: int, payment_id: str
    ) -> Any:
        reservation = self._get_reservation(reservation_id)
        user = self._get_user(reservation.user_id)
        total_price = 50 * max(0, nonfree_baggages - reservation.nonfree_baggages)
        payment = self._payment_for_update(user, payment_id, total_price)
        if payment is not None:
            reservation.payment_history.append(payment)
        reservation.total_baggages = total_baggages
        reservation.nonfree_baggages = nonfree_baggages
        return reservation

    def update_reservation_flights(self, reservation_id: str, cabin: str, flights: list[Any], payment_id: str) -> Any:
        flights = _as_models(self.models["FlightInfo"], flights)
        reservation = self._get_reservation(reservation_id)
        user = self._get_user(reservation.user_id)
        total_price, reservation_flights = 0, []
        for flight_info in flights:
            kept = next(
                (
                    rf
                    for rf in reservation.flights
                    if rf.flight_number == flight_info.flight_number
                    and rf.date == flight_info.date
                    and cabin == reservation.cabin
                ),
                None,
            )
            if kept:
                total_price += kept.price * len(reservation.passengers)
                reservation_flights.append(kept)
                continue
            new, _ = self._priced_flight(flight_info, cabin, len(reservation.passengers))
            total_price += new.price * len(reservation.passengers)
            reservation_flights.append(new)
        total_price -= sum(flight.price for flight in reservation.flights) * len(reservation.passengers)
        payment = self._payment_for_update(user, payment_id, total_price)
        if payment is not None:
            reservation.payment_history.append(payment)
        reservation.flights = reservation_flights
        reservation.cabin = cabin
        return reservation

    def update_reservation_passengers(self, reservation_id: str, passengers: list[Any]) -> Any:
        passengers = _as_models(self.models["Passenger"], passengers)
        reservation = self._get_reservation(reservation_id)
        if len(passengers) != len(reservation.passengers):
            raise ValueError("Number of passengers does not match")
        reservation.passengers = deepcopy(passengers)
        return reservation

    def get_flight_status(self, flight_number: str, date: str) -> str:
        status: str = self._get_flight_instance(flight_number, date).status
        return status


DOMAIN = DomainSpec(
    name="airline",
    toolkit=AirlineTools,
    source=KitSource(
        "tau2.domains.airline.tools", "AirlineTools", "tau2.domains.airline.data_model", "FlightDB", "db.json"
    ),
)
